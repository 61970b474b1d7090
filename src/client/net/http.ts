import http, { type IncomingHttpHeaders } from "node:http";
import { CliError, NetworkError, systemErrorCode } from "../errors.js";

/**
 * A request: the body is a string, bytes, or a function that streams it anew for each attempt. A
 * streamed chunk is the request's until the chunk after it has been taken and the stream is asked
 * for the next: then it has been written to the socket, and the stream may reuse its memory.
 */
interface HttpRequest {
  method: "GET" | "POST" | "DELETE";
  url: string;
  headers: Record<string, string | number>;
  body?: string | Uint8Array | (() => AsyncIterable<Uint8Array>);
}

/** A response with its body read as text. */
export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** A response header's value: the first one when the header came more than once. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** A request gives up when its socket is idle this long. */
const IDLE_TIMEOUT_MS = 120_000;

/**
 * node:https and TLS, loaded at the first https request: a deploy to an http server (a local one,
 * the bench's) never needs them, and they took about 13 ms of a CPU profile's start.
 */
let https: Promise<typeof import("node:https")> | undefined;

/**
 * Sends one HTTP request with node:http (fetch cannot stream a body of known length). A failure to
 * reach the server becomes a NetworkError naming `step` and the URL; an error thrown by the body's
 * stream (a CliError: the file changed, cannot be read) passes through as it is.
 */
export async function sendRequest(step: string, request: HttpRequest): Promise<HttpResponse> {
  const url = new URL(request.url);
  const transport = url.protocol === "https:" ? await (https ??= import("node:https")) : http;
  return new Promise<HttpResponse>((resolve, reject) => {
    let answered = false;
    let responded = false;
    const fail = (error: unknown) => {
      if (answered) return;
      answered = true;
      reject(error instanceof CliError ? error : toNetworkError(step, url, error));
    };
    const req = transport.request(url, { method: request.method, headers: request.headers }, (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
      });
      res.on("error", fail);
      res.on("end", () => {
        if (answered) return;
        answered = true;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        });
      });
      res.on("aborted", () => fail(Object.assign(new Error("response aborted"), { code: "ECONNRESET" })));
    });
    req.setTimeout(IDLE_TIMEOUT_MS, () => {
      req.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" }));
    });
    req.on("error", (error) => {
      if (!responded) fail(error);
    });
    const body = request.body;
    if (typeof body === "function") {
      writeBody(body(), req).catch((error: unknown) => {
        // The server may answer (e.g. 401) before reading the whole body: its answer wins.
        setImmediate(() => {
          if (responded) return;
          fail(error);
          req.destroy();
        });
      });
    } else {
      req.end(body);
    }
  });
}

/**
 * Writes a streamed body to the request, then ends it. One chunk is written while the next is
 * made; the next is asked for only once the one before has been written to the socket (its write
 * called back), which is also the backpressure.
 */
async function writeBody(chunks: AsyncIterable<Uint8Array>, req: http.ClientRequest): Promise<void> {
  // A write queued before the socket connected is never called back if it fails to: the close is.
  const closed = new Promise<never>((_, reject) => {
    req.once("close", () => reject(Object.assign(new Error("request closed"), { code: "ECONNRESET" })));
  });
  closed.catch(() => {});
  let writing: Promise<void> = Promise.resolve();
  for await (const chunk of chunks) {
    const written = new Promise<void>((resolve, reject) => {
      req.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
    // Awaited below, or dropped when the loop throws: its rejection is not an unhandled one.
    written.catch(() => {});
    await Promise.race([writing, closed]);
    writing = written;
  }
  await Promise.race([writing, closed]);
  req.end();
}

function toNetworkError(step: string, url: URL, error: unknown): NetworkError {
  const code = systemErrorCode(error) ?? "ERROR";
  const detail =
    code === "ECONNREFUSED"
      ? "connection refused: is the server running?"
      : code === "ENOTFOUND"
        ? `host ${url.hostname} not found`
        : code === "ETIMEDOUT"
          ? "timed out"
          : code === "ECONNRESET" || code === "EPIPE"
            ? "connection reset"
            : `${code}: ${(error as Error).message}`;
  return new NetworkError(step, url.origin + url.pathname, code, detail);
}
