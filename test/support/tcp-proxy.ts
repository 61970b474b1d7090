import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP forwarder on 127.0.0.1 in front of a real server (PostgreSQL), which a test can cut (every
 * connection dropped, new ones refused: the database went away) and restore on the same port.
 */
export interface TcpProxy {
  port: number;
  /** Drops every connection and stops listening. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  /**
   * Stops carrying bytes on every open connection without closing it: a network that went silent
   * (neither side is told). New connections are carried as before.
   */
  freeze(): void;
  close(): Promise<void>;
}

/** Starts forwarding a free port of 127.0.0.1 to `target` (host:port). */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  };
  let server: Server | undefined;
  const listen = async (port: number): Promise<number> => {
    const next = createServer((client) => {
      const upstream = connect(target.port, target.host);
      track(client);
      track(upstream);
      client.pipe(upstream).pipe(client);
      const pair: [Socket, Socket] = [client, upstream];
      pairs.add(pair);
      client.on("close", () => pairs.delete(pair));
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      next.listen(port, "127.0.0.1", resolve);
    });
    server = next;
    return (next.address() as { port: number }).port;
  };
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    const current = server;
    server = undefined;
    if (current) await new Promise((resolve) => current.close(resolve));
  };
  const port = await listen(0);
  const freeze = () => {
    for (const [client, upstream] of pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
    pairs.clear();
  };
  return { port, cut: stop, restore: async () => void (await listen(port)), freeze, close: stop };
}
