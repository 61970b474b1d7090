import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

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

/** Answers 500 if nothing was sent yet; otherwise cuts the connection so the client sees a failure. */
export function sendServerError(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendPlain(res, 500, "Internal Server Error");
}
