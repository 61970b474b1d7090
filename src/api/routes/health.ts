import { Hono } from "hono";
import { DeployError } from "../../core/errors.js";
import type { Services } from "../../core/operations/services.js";

/** `GET /health` (the process answers) and `GET /healthz` (its dependencies answer too). */
export function healthRoutes(services: Services): Hono {
  const app = new Hono();

  app.get("/health", (c) => c.json({ status: "ok" }, 200));

  app.get("/healthz", async (c) => {
    const checks: Record<string, string> = {};
    // Why a check is down, where the error says it in words meant for the API's users (the
    // platform's "Cloudflare refused the API token …"); never a raw cause.
    const reasons: Record<string, string> = {};
    const probe = async (name: string, check: () => Promise<void>) => {
      try {
        await check();
        checks[name] = "ok";
      } catch (error) {
        checks[name] = "down";
        if (error instanceof DeployError) reasons[name] = error.message;
      }
    };
    await probe("store", () => services.store.ping());
    await probe("platform", () => services.platform.check());
    for (const [name, check] of Object.entries(services.platform.dependencyChecks?.() ?? {})) {
      await probe(name, check);
    }
    const ok = Object.values(checks).every((state) => state === "ok");
    const body = Object.keys(reasons).length > 0 ? { checks, reasons } : { checks };
    return c.json({ status: ok ? "ok" : "degraded", ...body }, ok ? 200 : 503);
  });

  return app;
}
