import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Cloudflare's v4 answer to a call that succeeded: `{ success, errors, messages, result }`. */
export function ok(c: Context, result: unknown, status: ContentfulStatusCode = 200): Response {
  return c.json({ success: true, errors: [], messages: [], result }, status);
}

/** Cloudflare's v4 answer to a call that failed, with one error of Cloudflare's form. */
export function fail(
  c: Context,
  status: ContentfulStatusCode,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return c.json({ success: false, errors: [{ code, message }], messages: [], result: null }, status, headers);
}
