import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How long a client may take: to send its headers, its whole request, and idle between requests. */
export interface Timeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

/** A node:http listener whose handler is attached once the other parts know its real URL. */
export interface Listener {
  server: Server;
  url: string;
  handle(handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  close(): Promise<void>;
}

/**
 * Listens on `host:port` (0 picks a free port) with timeouts against slow clients, and answers 503
 * until a handler is attached.
 */
export async function listen(
  host: string,
  port: number,
  options: { timeouts: Timeouts; requireHostHeader?: boolean },
): Promise<Listener> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(503).end();
  };
  const server = createServer(
    {
      requestTimeout: options.timeouts.requestMs,
      headersTimeout: options.timeouts.headersMs,
      keepAliveTimeout: options.timeouts.keepAliveMs,
      // Node checks the two timeouts above only this often (30 s by default): check every second
      // so a slow client is cut off when its time is up, not up to 30 s later.
      connectionsCheckingInterval: 1_000,
      requireHostHeader: options.requireHostHeader ?? true,
    },
    (req, res) => handler(req, res),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const printable = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${printable}:${address.port}`,
    handle(next) {
      handler = next;
    },
    // Stops taking connections and lets requests in flight finish; keep-alive sockets are closed
    // as soon as they fall idle, so a finished request does not hold the stop for its idle timeout.
    close: () =>
      new Promise<void>((resolve) => {
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
