import { connect, createServer, type Socket } from "node:net";

/** A load balancer in front of several processes of one role, as an operator would run. */
export interface Balancer {
  url: string;
  close(): Promise<void>;
}

/**
 * Forwards each TCP connection to the next of `targets` (round robin); a target that refuses the
 * connection (its process is gone) is passed over for the next, as a load balancer's passive
 * health check does. A connection already forwarded is not moved: its client sees it drop.
 */
export async function startBalancer(targets: string[]): Promise<Balancer> {
  const upstreams = targets.map((target) => new URL(target));
  const sockets = new Set<Socket>();
  let next = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  };
  const forward = (client: Socket, tried: number) => {
    if (tried === upstreams.length) {
      client.destroy();
      return;
    }
    const target = upstreams[next++ % upstreams.length]!;
    const upstream = connect(Number(target.port), target.hostname);
    upstream.once("connect", () => {
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.resume();
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    upstream.once("error", () => {
      if (upstream.connecting || !sockets.has(upstream)) forward(client, tried + 1);
    });
  };
  const server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    forward(client, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
