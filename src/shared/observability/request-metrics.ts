import type { IncomingMessage, ServerResponse } from "node:http";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Metrics, Role } from "./metrics.js";

/**
 * Counts each request of a Hono app by the pattern of the route that answered it (never the raw
 * path: a slug or a hash in a label would make a series per project). A request no route matched is
 * counted as `unmatched`.
 */
export function requestMetrics(metrics: Metrics, role: Role): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = routePath(c, -1);
      metrics.observeRequest(
        role,
        route === "/*" || route === "*" ? "unmatched" : route,
        c.req.method,
        c.res.status,
        (performance.now() - started) / 1000,
      );
    }
  };
}

/**
 * Counts each request of a plain Node listener under one route label (the edge: a site's paths are
 * its own, so they are never labels): at once when the handler answered within its call (the
 * edge's remembered routes: no listener, no closure kept), else when its response is finished or
 * the client went away.
 */
export function observeNodeRequests(
  metrics: Metrics,
  role: Role,
  route: string,
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
): (req: IncomingMessage, res: ServerResponse) => void {
  const count = metrics.requestsOf(role, route);
  const observe = (req: IncomingMessage, res: ServerResponse, started: number): void =>
    count(req.method ?? "", res.statusCode, (performance.now() - started) / 1000);
  return (req, res) => {
    const started = performance.now();
    handler(req, res);
    if (res.writableEnded) observe(req, res, started);
    else res.once("close", () => observe(req, res, started));
  };
}
