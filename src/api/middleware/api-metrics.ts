import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Metrics } from "../../shared/observability/metrics.js";
import { requestMetrics } from "../../shared/observability/request-metrics.js";

const DEPLOY_ROUTE = "/projects/:projectSlug/deploy";

/** Counts the API's requests by route pattern, and each deploy completed (a revision published). */
export function apiMetrics(metrics: Metrics): MiddlewareHandler {
  const requests = requestMetrics(metrics, "api");
  return (c, next) =>
    requests(c, async () => {
      await next();
      const completed = c.req.method === "POST" && c.res.status < 300 && routePath(c, -1) === DEPLOY_ROUTE;
      if (completed) metrics.deploys.inc();
    });
}
