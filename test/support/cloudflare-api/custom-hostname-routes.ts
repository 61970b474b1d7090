import { Hono } from "hono";
import { fail, ok } from "./envelope.js";
import type { CloudflareState, CustomHostname } from "./state.js";

/** Cloudflare for SaaS custom hostnames of a zone: create, list by hostname, read, delete. */
export function customHostnameRoutes(state: CloudflareState, now: () => number): Hono {
  const app = new Hono();

  app.post("/zones/:zone/custom_hostnames", async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as {
      hostname?: string;
      ssl?: { method?: string; type?: string };
    };
    const zone = state.zone(c.req.param("zone"));
    if (typeof body.hostname !== "string") return fail(c, 400, 1400, "hostname is required");
    if ([...zone.values()].some((h) => h.hostname === body.hostname)) {
      return fail(c, 409, 1406, "Duplicate custom hostname found.");
    }
    const created: CustomHostname = {
      id: crypto.randomUUID(),
      hostname: body.hostname,
      status: "pending",
      // As sent: the stand-in guesses no default for a certificate the platform did not ask for.
      ssl: { method: body.ssl?.method ?? "", type: body.ssl?.type ?? "", status: "pending_validation" },
      created_at: new Date(now()).toISOString(),
    };
    zone.set(created.id, created);
    return ok(c, created);
  });

  app.get("/zones/:zone/custom_hostnames", (c) => {
    // The SDK sends `hostname[exact]=`; Cloudflare's docs show `hostname=` and `hostname.exact=`.
    const hostname =
      c.req.query("hostname[exact]") ?? c.req.query("hostname.exact") ?? c.req.query("hostname");
    const all = [...state.zone(c.req.param("zone")).values()];
    const matching = hostname === undefined ? all : all.filter((h) => h.hostname === hostname);
    // Paged as Cloudflare pages it: `page` from 1, `per_page` (default 20, at most 50).
    const page = Math.max(1, Number(c.req.query("page") ?? 1) || 1);
    const perPage = Math.min(50, Math.max(5, Number(c.req.query("per_page") ?? 20) || 20));
    const result = matching.slice((page - 1) * perPage, page * perPage);
    return c.json({
      success: true,
      errors: [],
      messages: [],
      result,
      result_info: { page, per_page: perPage, count: result.length, total_count: matching.length },
    });
  });

  app.get("/zones/:zone/custom_hostnames/:id", (c) => {
    const found = state.zone(c.req.param("zone")).get(c.req.param("id"));
    return found === undefined ? fail(c, 404, 1436, "The custom hostname was not found.") : ok(c, found);
  });

  app.delete("/zones/:zone/custom_hostnames/:id", (c) => {
    const id = c.req.param("id");
    if (!state.zone(c.req.param("zone")).delete(id))
      return fail(c, 404, 1436, "The custom hostname was not found.");
    return ok(c, { id });
  });

  return app;
}
