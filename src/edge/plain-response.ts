import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { DeployError } from "../core/errors.js";

/** Headers every edge response carries, whatever it is. */
export const ALWAYS: OutgoingHttpHeaders = { "x-content-type-options": "nosniff" };

/** Error pages describe a moment, not content: they must not be kept. */
export const NO_STORE = "no-store";

/** Answers with a short plain-text body (or none for HEAD); the message never carries internals. */
export function sendPlain(
  res: ServerResponse,
  status: number,
  message: string,
  extra: OutgoingHttpHeaders = {},
): void {
  const body = Buffer.from(`${message}\n`);
  res.writeHead(status, {
    ...ALWAYS,
    "content-type": "text/plain; charset=utf-8",
    "content-length": body.length,
    "cache-control": NO_STORE,
    ...extra,
  });
  res.end(res.req.method === "HEAD" ? undefined : body);
}

/**
 * Answers 500 if nothing was sent yet, or 503 with `{ error: { code, message } }` and Retry-After
 * when a dependency is unavailable (a content store that is down: the same request may succeed
 * soon); otherwise cuts the connection so the client sees a failure.
 */
export function sendServerError(
  res: ServerResponse,
  unavailable?: DeployError & { retryAfterSeconds: number },
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (!unavailable) {
    sendPlain(res, 500, "Internal Server Error");
    return;
  }
  const body = Buffer.from(
    JSON.stringify({ error: { code: unavailable.code, message: unavailable.message } }),
  );
  res.writeHead(503, {
    ...ALWAYS,
    "content-type": "application/json; charset=utf-8",
    "content-length": body.length,
    "cache-control": NO_STORE,
    "retry-after": String(unavailable.retryAfterSeconds),
  });
  res.end(res.req.method === "HEAD" ? undefined : body);
}
