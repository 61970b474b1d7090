import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { ServerStartingError } from "../core/errors.js";
import { admitRequest, lingerOnClose } from "./lingering-close.js";

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
 * Listens on `host:port` (0 picks a free port) with timeouts against slow clients, closes its
 * connections lingering (`lingerOnClose`), and answers 503 SERVER_STARTING until a handler is
 * attached (`starting`).
 */
export async function listen(
  host: string,
  port: number,
  options: { timeouts: Timeouts; requireHostHeader?: boolean; logger?: Logger },
): Promise<Listener> {
  let handler = (req: IncomingMessage, res: ServerResponse) => starting(req, res, options.logger);
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
    // A request that arrives on a closing connection (pipelined after a refusal) is not handled.
    (req, res) => (admitRequest(req) ? handler(req, res) : req.socket.destroy()),
  );
  // An early answer (401, 404, 413, 429) reaches a client that is still sending its body.
  const lingering = lingerOnClose(server);
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
        lingering.destroyAll();
      }),
  };
}

/**
 * The answer of a listener whose handler is not attached yet (the process is opening its store
 * and platform): 503 with the contract's JSON error SERVER_STARTING and `Retry-After: 1`, and a
 * log line. `/health` and `/healthz` also say `status: "starting"`, so a health check reads it as
 * not ready. The body is never read: the connection is closed after the answer.
 */
export function starting(req: IncomingMessage, res: ServerResponse, logger?: Logger): void {
  const error = new ServerStartingError();
  const path = (req.url ?? "/").split("?")[0];
  const health = path === "/health" || path === "/healthz";
  logger?.warn({ method: req.method, path }, error.code);
  res
    .writeHead(503, {
      "content-type": "application/json",
      "retry-after": String(error.retryAfterSeconds),
      connection: "close",
    })
    .end(
      JSON.stringify({
        ...(health && { status: "starting" }),
        error: { code: error.code, message: error.message },
      }),
    );
}
