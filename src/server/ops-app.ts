import { Hono } from "hono";
import { healthRoute, healthzRoute } from "../api/routes/health.js";
import { mountRoutes } from "../api/routes/route.js";
import type { Services } from "../core/operations/services.js";
import type { Metrics } from "../shared/observability/metrics.js";

/**
 * The operator's listener, on every process whatever its roles (METRICS_HOST:METRICS_PORT, loopback
 * by default: these figures are for the operator's scraper, not for strangers): `/metrics` in
 * Prometheus's text format, `/health` and `/healthz` (the database and the content store).
 */
export function createOpsApp(deps: { services: Services; metrics: Metrics }): Hono {
  const app = new Hono();
  app.get("/metrics", async (c) => {
    const { body, contentType } = await deps.metrics.render();
    return c.body(body, 200, { "content-type": contentType });
  });
  mountRoutes(app, [healthRoute, healthzRoute], deps);
  app.notFound((c) => c.json({ error: "not found" }, 404));
  return app;
}
