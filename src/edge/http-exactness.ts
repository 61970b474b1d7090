import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

/** Longest request target the edge routes (nginx's default buffer); longer ones get 414. */
export const MAX_TARGET_LENGTH = 8192;

/** A message-level refusal: status and its short text. */
export interface Refusal {
  status: 400 | 414;
  message: string;
}

/**
 * What RFC 9112 requires of a request before it is routed: a target not too long (414), exactly
 * one Host (§3.2: several are a 400), and a Host on every HTTP/1.1 request (400). HTTP/1.0 may
 * omit it; such a request then reaches no site.
 */
export function refusalOf(req: IncomingMessage): Refusal | undefined {
  if ((req.url ?? "").length > MAX_TARGET_LENGTH) return { status: 414, message: "URI Too Long" };
  if (req.headers.host === undefined) {
    return req.httpVersionMajor === 1 && req.httpVersionMinor === 0
      ? undefined
      : { status: 400, message: "Bad Request" };
  }
  // Node keeps the first of several Host headers; only the raw list shows the others.
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === "host" && ++hosts > 1) {
      return { status: 400, message: "Bad Request" };
    }
  }
  return undefined;
}

/** What the parser refuses before a request exists: the status and text to answer with. */
function clientErrorReply(error: { code?: string; rawPacket?: Buffer }): [number, string] {
  if (error.code === "HPE_HEADER_OVERFLOW") {
    // Over Node's header limit: a request line that alone is too long is a 414, else a 431.
    const packet = error.rawPacket;
    const lineEnd = packet ? packet.indexOf(0x0a) : -1;
    return lineEnd === -1 || lineEnd > MAX_TARGET_LENGTH
      ? [414, "URI Too Long"]
      : [431, "Request Header Fields Too Large"];
  }
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "Request Timeout"];
  return [400, "Bad Request"];
}

/**
 * The edge listener's `clientError` handler: answers what the HTTP parser refused with the same
 * short plain-text body as every other edge error (Node's own answer has none), then closes.
 */
export function answerClientError(
  error: Error & { code?: string; rawPacket?: Buffer },
  socket: Duplex,
): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] = clientErrorReply(error);
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${message}\r\n` +
      "Content-Type: text/plain; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "X-Content-Type-Options: nosniff\r\n" +
      "Cache-Control: no-store\r\n" +
      "Connection: close\r\n\r\n" +
      body,
  );
}
