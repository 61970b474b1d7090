import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import { DeployError, RateLimitedError } from "../core/errors.js";

/**
 * The one place that turns errors into responses: a domain error becomes its status with
 * `{ error: { code, message } }`; anything else is logged and answered 500 INTERNAL, with no
 * stack trace or internal detail in the body.
 */
export function errorResponse(error: unknown, c: Context, logger: Logger): Response {
  if (error instanceof DeployError) {
    if (error instanceof RateLimitedError) c.header("Retry-After", String(error.retryAfterSeconds));
    return c.json(
      { error: { code: error.code, message: error.message } },
      error.status as ContentfulStatusCode,
    );
  }
  logger.error({ err: error, method: c.req.method, path: c.req.path }, "unexpected error");
  return c.json({ error: { code: "INTERNAL", message: "internal error" } }, 500);
}
