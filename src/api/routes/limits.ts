import { Hono } from "hono";
import { serverLimits } from "../../core/operations/index.js";
import type { Services } from "../../core/operations/services.js";

/** `GET /limits`: the server's limits, read-only and the same for everyone (contract §3). */
export function limitsRoutes(services: Services, maxRequestBytes: number): Hono {
  const app = new Hono();
  app.get("/limits", (c) => c.json(serverLimits(services, maxRequestBytes), 200));
  return app;
}
