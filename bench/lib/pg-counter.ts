import { connect, createServer, type Socket } from "node:net";

/** What went to PostgreSQL through the counter since the last `reset`. */
export interface PgTraffic {
  /** Statements run: simple queries ('Q') and extended-protocol executions ('E'). */
  statements: number;
  /** Bytes from the service to PostgreSQL, and back. */
  bytesSent: number;
  bytesReceived: number;
}

/** A counting forwarder between the service and PostgreSQL: its URL stands in for the server's. */
export interface PgCounter {
  url: string;
  traffic(): PgTraffic;
  reset(): void;
  close(): Promise<void>;
}

/** The application_name a startup message sets (its body: protocol, then name/value pairs, each NUL-ended). */
function applicationNameOf(startup: Buffer): string | undefined {
  const fields = startup.subarray(8).toString("utf8").split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === "application_name") return fields[i + 1];
  return undefined;
}

/**
 * Forwards `target` (a postgres:// URL) through a port of 127.0.0.1 and reads the frontend's
 * messages as they pass (after the untyped startup message, each is a type byte and a length), so
 * a benchmark can say how many statements and bytes one publish costs the database. Connections
 * whose application_name `ignore` accepts are forwarded but not counted: the manifest listener's
 * heartbeat (a `SELECT 1` every few hundred ms) is not the deploy's.
 */
export async function startPgCounter(
  target: string,
  ignore: (applicationName: string) => boolean = (name) => name.startsWith("manifest listener"),
): Promise<PgCounter> {
  const upstreamUrl = new URL(target);
  const counts: PgTraffic = { statements: 0, bytesSent: 0, bytesReceived: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(upstreamUrl.port || 5432), upstreamUrl.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    let pending = Buffer.alloc(0);
    let started = false;
    let counted = true;
    client.on("data", (chunk: Buffer) => {
      if (counted) counts.bytesSent += chunk.length;
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        // The startup message (and an SSL request) has no type byte: a length, then the body.
        const header = started ? 5 : 4;
        if (pending.length < header) break;
        const length = started ? pending.readUInt32BE(1) + 1 : pending.readUInt32BE(0);
        if (pending.length < length) break;
        if (counted && started && (pending[0] === 0x51 || pending[0] === 0x45)) counts.statements++;
        const code = started ? 0 : pending.readUInt32BE(4);
        // An SSLRequest (80877103) is followed by another untyped startup message.
        if (!started && code !== 80877103) {
          started = true;
          counted = !ignore(applicationNameOf(pending.subarray(0, length)) ?? "");
          if (!counted) counts.bytesSent -= chunk.length;
        }
        pending = pending.subarray(length);
      }
    });
    upstream.on("data", (chunk: Buffer) => {
      if (counted) counts.bytesReceived += chunk.length;
      client.write(chunk);
    });
    client.on("end", () => upstream.end());
    upstream.on("end", () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    traffic: () => ({ ...counts }),
    reset: () => Object.assign(counts, { statements: 0, bytesSent: 0, bytesReceived: 0 }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
