import { randomUUID } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { Logger } from "pino";

// What a load balancer's id may look like to be kept: short and plain, so a log line stays one line.
const FORWARDED_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Where a log line about this request says it came from: its id, method and path. */
export function requestOrigin(c: Context): { requestId?: string; method: string; path: string } {
  const requestId = c.get("requestId" as never) as string | undefined;
  return { requestId, method: c.req.method, path: c.req.path };
}

/**
 * Gives each request an id (echoed as `X-Request-Id`) and logs one line when it ends: method,
 * path, status and duration. An id the load balancer sent is kept, so its logs and ours join up.
 * Headers and bodies are never logged, so no token or JWT reaches a log.
 */
export function requestLogger(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const forwarded = c.req.header("x-request-id");
    const requestId = forwarded && FORWARDED_ID.test(forwarded) ? forwarded : randomUUID();
    c.set("requestId" as never, requestId as never);
    c.header("X-Request-Id", requestId);
    await next();
    logger.info(
      {
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      "request",
    );
  };
}
