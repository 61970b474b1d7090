import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

/** How much of a refused request's body a closing connection still reads, and for how long. */
export interface LingerLimits {
  /** Bytes read and discarded after the answer; a body declared larger is cut off at once. */
  bytes: number;
  ms: number;
}

/** nginx's lingering_close reads for up to 5 s; a small body's rest arrives well within 2. */
export const LINGER_LIMITS: LingerLimits = { bytes: 1024 * 1024, ms: 2_000 };

// How often a lingering socket's bytes are counted: loopback brings about a megabyte a
// millisecond, so at 20 ms a sender got some 20 MB past the 1 MiB bound before it was seen.
const CHECK_MS = 5;

const lingering = new WeakSet<Socket>();
// A socket's latest request, kept on the socket itself: a property store costs a request less
// than a WeakMap's, and goes with the socket.
const LATEST_REQUEST = Symbol("latest request");
type RequestSocket = Socket & { [LATEST_REQUEST]?: IncomingMessage };

/**
 * Whether a request is to be handled: false when its socket is closing (what it still brings is
 * discarded). Remembers it as its socket's latest, whose body a lingering close reads out; the
 * listener calls it for every request, before its handler.
 */
export function admitRequest(req: IncomingMessage): boolean {
  const socket = req.socket as RequestSocket;
  if (lingering.has(socket)) return false;
  socket[LATEST_REQUEST] = req;
  return true;
}

/**
 * Makes `server` close its connections as nginx's lingering_close does. Node closes a connection
 * whose answer said `Connection: close` (a refusal sent before the body had all arrived: the
 * upload service's 401, 404, 413) by destroying its socket as soon as the answer is written, and
 * @hono/node-server does the same after 500 ms of discarding an unread body; body bytes that
 * reach a destroyed socket, or wait unread in it, make the kernel reset the connection, and a
 * client still sending gets EPIPE or ECONNRESET instead of the answer (issue 31: Node's fetch in
 * 2 of 5 tries with a 900-byte body). Instead the writing side is ended (the client sees the whole
 * answer and the end), what the client still sends is read and discarded, and the socket is
 * destroyed once the client ends its side, past `limits.bytes` or after `limits.ms`. A body
 * declared larger than `limits.bytes` is cut off at once, as before: it would only be read to be
 * thrown away. `destroyAll` ends the lingering connections at once (the listener is stopping).
 * The server's request listener must pass each request through `admitRequest` first.
 */
export function lingerOnClose(server: Server, limits: LingerLimits = LINGER_LIMITS): { destroyAll(): void } {
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    socket.destroySoon = function lingeringClose(this: Socket) {
      if (this.destroyed || lingering.has(this)) return;
      lingering.add(this);
      open.add(this);
      this.once("close", () => open.delete(this));
      if (this.writable) this.end();
      const req = (this as RequestSocket)[LATEST_REQUEST];
      const declared = Number(req?.headers["content-length"] ?? 0);
      const bodyLeft = req !== undefined && !req.complete;
      if (this.readableEnded || (bodyLeft && declared > limits.bytes)) {
        return destroyWhenWritten(this);
      }
      const start = this.bytesRead;
      // The hard bound: destroyed then even if the client never read the answer.
      const timer = setTimeout(() => this.destroy(), limits.ms).unref();
      // The HTTP parser reads the socket itself (no 'data' events), so its count is polled.
      const check = setInterval(() => {
        if (this.bytesRead - start <= limits.bytes) return;
        clearInterval(check);
        destroyWhenWritten(this);
      }, CHECK_MS).unref();
      this.once("end", () => destroyWhenWritten(this));
      this.once("close", () => {
        clearTimeout(timer);
        clearInterval(check);
      });
      this.resume();
    };
  });
  // A stopping listener does not wait for what its closing connections still discard.
  return { destroyAll: () => open.forEach((socket) => socket.destroy()) };
}

/** Destroys `socket` once what was written to it has gone out, as Node's own destroySoon. */
function destroyWhenWritten(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableFinished) socket.destroy();
  else socket.once("finish", () => socket.destroy());
}
