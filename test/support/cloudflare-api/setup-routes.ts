import { Hono } from "hono";
import { fail, ok } from "./envelope.js";
import type { CloudflareState } from "./state.js";

/**
 * What `deploy-server cloudflare setup` calls: reading the dispatch and KV namespaces, uploading an
 * account Worker (kept by name with its bindings) and adding zone routes to it.
 */
export function setupRoutes(state: CloudflareState): Hono {
  const app = new Hono();

  app.get("/accounts/:account/workers/dispatch/namespaces/:ns", (c) =>
    ok(c, { namespace_name: c.req.param("ns"), script_count: state.scripts.size }),
  );
  app.get("/accounts/:account/storage/kv/namespaces/:id", (c) =>
    ok(c, { id: c.req.param("id"), title: "manifest" }),
  );

  app.put("/accounts/:account/workers/scripts/:script", async (c) => {
    const form = await c.req.formData().catch(() => undefined);
    const metadataPart = form?.get("metadata");
    if (form === undefined || metadataPart === null || metadataPart === undefined) {
      return fail(c, 400, 10021, "could not read content for part metadata");
    }
    const metadata = JSON.parse(typeof metadataPart === "string" ? metadataPart : await metadataPart.text());
    const main = [...form.values()].find((p) => typeof p !== "string" && p.name === metadata.main_module);
    if (main === undefined || typeof main === "string")
      return fail(c, 400, 10021, "no module part named by main_module");
    state.accountWorkers.set(c.req.param("script"), {
      source: await main.text(),
      bindings: metadata.bindings ?? [],
      compatibilityDate: metadata.compatibility_date,
      moduleType: main.type,
    });
    return ok(c, { id: c.req.param("script") });
  });

  app.post("/zones/:zone/workers/routes", async (c) => {
    const body = (await c.req.json()) as { pattern: string; script?: string };
    if (state.routes.some((r) => r.pattern === body.pattern))
      return fail(c, 409, 10020, "route already exists");
    state.routes.push({ pattern: body.pattern, script: body.script ?? "" });
    return ok(c, { id: crypto.randomUUID(), ...body });
  });

  return app;
}
