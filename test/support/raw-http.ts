import { connect, type Socket } from "node:net";

/** A response read off the wire: status, lowercased headers, and the (de-chunked) body. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends bytes exactly as given to `baseUrl`'s host and port, and reads the answer until the server
 * closes the connection (send `Connection: close`). Nothing is normalised: paths, Host headers and
 * bodies reach the server as written. Rejects after `timeoutMs` (a hang is a failure). The client
 * does not half-close unless asked: Node's server drops a request whose client ends its side first.
 */
export function rawRequest(
  baseUrl: string,
  request: string | Buffer,
  timeoutMs = 5_000,
  options: { halfClose?: boolean } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    // `halfClose` ends the client's side after the bytes, for requests that are incomplete on purpose.
    socket.on("connect", () => (options.halfClose ? socket.end(request) : socket.write(request)));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** Builds a request: request line, headers as given (none added), blank line, body. */
export function rawMessage(
  method: string,
  target: string,
  headers: [string, string][],
  body: string | Buffer = "",
): Buffer {
  const head = `${method} ${target} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(body)]);
}

/** Parses one HTTP/1.1 response from the bytes of a closed connection. */
export function parseResponse(bytes: Buffer): RawResponse {
  const end = bytes.indexOf("\r\n\r\n");
  if (end === -1) throw new Error(`incomplete response: ${JSON.stringify(bytes.toString("latin1"))}`);
  const [statusLine = "", ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] =
      headers[name] === undefined
        ? line.slice(colon + 1).trim()
        : `${headers[name]}, ${line.slice(colon + 1).trim()}`;
  }
  let body = bytes.subarray(end + 4);
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) body = dechunk(body);
  return { status, headers, body };
}

function dechunk(bytes: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf("\r\n", at);
    if (eol === -1) break;
    const size = parseInt(bytes.subarray(at, eol).toString("latin1"), 16);
    if (!size) break;
    out.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Opens a connection and resolves with the socket once connected, for tests that pace their bytes. */
export function openSocket(baseUrl: string): Promise<Socket> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Resolves with how long the server took to close `socket` (ms), or rejects after `limitMs`. */
export function closedWithin(socket: Socket, limitMs: number): Promise<{ ms: number; received: Buffer }> {
  const started = Date.now();
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("error", () => undefined);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${limitMs} ms`));
    }, limitMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve({ ms: Date.now() - started, received: Buffer.concat(chunks) });
    });
  });
}
