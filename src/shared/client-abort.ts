/** The client went away before its request body arrived whole: nothing failed on our side. */
export class ClientAbortedError extends Error {
  constructor(options?: { cause?: unknown }) {
    super("the client aborted the request", options);
    this.name = "ClientAbortedError";
  }
}

// What node:http and the streams built on it report when the peer closes or resets the connection.
const ABORT_CODES = new Set(["ECONNRESET", "ECONNABORTED", "EPIPE", "ERR_STREAM_PREMATURE_CLOSE"]);

/**
 * True when `error` says the client closed or reset its connection mid-request: such a request is
 * logged at info, not as an error of the service (issue 14).
 */
export function isClientAbort(error: unknown): boolean {
  if (error instanceof ClientAbortedError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && ABORT_CODES.has(code)) || error.message === "aborted";
}
