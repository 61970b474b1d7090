import type { Context } from "hono";
import { DeployError } from "../../core/errors.js";
import type { Services } from "../../core/operations/services.js";
import { responses } from "../request/schemas.js";
import { json } from "./operation.js";
import { defineRoute } from "./route.js";

/** `GET /health`: the process answers. */
export const healthRoute = defineRoute<{ services: Services }>({
  method: "get",
  path: "/health",
  operation: () => ({
    summary: "health check",
    responses: { "200": { description: "ok", ...json(responses.health) } },
  }),
  handlers: () => [(c) => c.json({ status: "ok" }, 200)],
});

/** `GET /healthz`: the process and its dependencies answer (also on the operator's listener). */
export const healthzRoute = defineRoute<{ services: Services }>({
  method: "get",
  path: "/healthz",
  operation: () => ({
    summary: "health check of the service and its dependencies",
    responses: {
      "200": { description: "ok", ...json(responses.healthz) },
      "503": { description: "a dependency is down", ...json(responses.healthz) },
    },
  }),
  handlers: ({ services }) => [(c) => healthz(c, services)],
});

async function healthz(c: Context, services: Services): Promise<Response> {
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
}
