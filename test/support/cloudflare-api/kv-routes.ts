import { Hono } from "hono";
import { fail, ok } from "./envelope.js";
import type { CloudflareState } from "./state.js";

const KEY_NOT_FOUND = 10009;

/** Workers KV values and key listing, as the v4 API serves them. */
export function kvRoutes(state: CloudflareState): Hono {
  const app = new Hono();
  const value = "/accounts/:account/storage/kv/namespaces/:id/values/:key";

  app.put(value, async (c) => {
    const { id, key } = c.req.param();
    const form = await c.req.formData().catch(() => undefined);
    const part = form?.get("value");
    if (part === null || part === undefined) return fail(c, 400, 10021, "the value part is required");
    state.kvNamespace(id).set(key, typeof part === "string" ? part : await part.text());
    return ok(c, {});
  });

  app.get(value, (c) => {
    const { id, key } = c.req.param();
    const found = state.kvNamespace(id).get(key);
    // A value is answered raw, not in the envelope.
    if (found === undefined) return fail(c, 404, KEY_NOT_FOUND, "get: 'key not found'");
    return c.body(found, 200, { "content-type": "application/octet-stream" });
  });

  app.delete(value, (c) => {
    const { id, key } = c.req.param();
    state.kvNamespace(id).delete(key);
    return ok(c, {});
  });

  app.get("/accounts/:account/storage/kv/namespaces/:id/keys", (c) => {
    const { id } = c.req.param();
    const prefix = c.req.query("prefix") ?? "";
    const limit = Number(c.req.query("limit") ?? 1000);
    const after = c.req.query("cursor") ?? "";
    const names = [...state.kvNamespace(id).keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
    const page = names.slice(0, limit);
    const cursor = names.length > limit ? page[page.length - 1]! : "";
    return c.json({
      success: true,
      errors: [],
      messages: [],
      result: page.map((name) => ({ name })),
      result_info: { count: page.length, cursor },
    });
  });

  return app;
}
