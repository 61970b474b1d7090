import { Hono } from "hono";
import type { Services } from "../../core/operations/services.js";

/** `GET /health` (the process answers) and `GET /healthz` (its dependencies answer too). */
export function healthRoutes(services: Services): Hono {
  const app = new Hono();

  app.get("/health", (c) => c.json({ status: "ok" }, 200));

  app.get("/healthz", async (c) => {
    const checks: Record<string, string> = {};
    const probe = async (name: string, check: () => Promise<void>) => {
      try {
        await check();
        checks[name] = "ok";
      } catch {
        checks[name] = "down";
      }
    };
    await probe("store", () => services.store.ping());
    await probe("platform", () => services.platform.check());
    const ok = Object.values(checks).every((state) => state === "ok");
    return c.json({ status: ok ? "ok" : "degraded", checks }, ok ? 200 : 503);
  });

  return app;
}
