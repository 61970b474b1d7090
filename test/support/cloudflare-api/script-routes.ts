import { Hono } from "hono";
import { fail, ok } from "./envelope.js";
import type { CloudflareState } from "./state.js";
import type { UploadTokens } from "./upload-tokens.js";

const SCRIPT_NOT_FOUND = 10007;

/**
 * Scripts of a dispatch namespace: the multipart upload (a `metadata` JSON part naming the main
 * module's part), read and delete. A script with assets is refused unless its `assets.jwt` is a
 * completion token of a session for that very script.
 */
export function scriptRoutes(state: CloudflareState, tokens: UploadTokens, now: () => number): Hono {
  const app = new Hono();
  const base = "/accounts/:account/workers/dispatch/namespaces/:ns/scripts/:script";

  app.put(base, async (c) => {
    const { ns, script } = c.req.param();
    const form = await c.req.formData().catch(() => undefined);
    const metadataPart = form?.get("metadata");
    if (form === undefined || metadataPart === null || metadataPart === undefined) {
      return fail(c, 400, 10021, "could not read content for part metadata");
    }
    const metadataText = typeof metadataPart === "string" ? metadataPart : await metadataPart.text();
    let metadata: {
      main_module?: string;
      compatibility_date?: string;
      bindings?: { type: string; name: string }[];
      tags?: string[];
      assets?: { jwt?: string; config?: Record<string, unknown> };
    };
    try {
      metadata = JSON.parse(metadataText);
    } catch {
      return fail(c, 400, 10021, "metadata is not JSON");
    }
    const main = [...form.values()].find(
      (part) => typeof part !== "string" && part.name === metadata.main_module,
    );
    if (metadata.main_module === undefined || main === undefined || typeof main === "string") {
      return fail(c, 400, 10021, "no module part named by main_module");
    }
    // An ES module's part says so in its content type; another type is read as a service worker.
    if (main.type !== "application/javascript+module") {
      return fail(c, 400, 10021, "main_module must be an ES module (application/javascript+module)");
    }
    let assets: Record<string, { hash: string; size: number }> = {};
    if (metadata.assets !== undefined) {
      const claims = await tokens.verify(metadata.assets.jwt ?? "");
      const session = claims && state.sessions.get(claims.session);
      if (
        claims?.purpose !== "completion" ||
        session === undefined ||
        claims.namespace !== ns ||
        claims.script !== script
      ) {
        return fail(c, 400, 10021, "assets.jwt is not a completion token for this script");
      }
      assets = session.manifest;
    }
    const existing = state.script(ns, script);
    const stored = {
      namespace: ns,
      name: script,
      mainModule: metadata.main_module,
      moduleSource: await main.text(),
      compatibilityDate: metadata.compatibility_date,
      bindings: metadata.bindings ?? [],
      tags: metadata.tags ?? [],
      assetsConfig: metadata.assets?.config ?? {},
      assets,
      createdOn: existing?.createdOn ?? new Date(now()).toISOString(),
    };
    state.scripts.set(`${ns}/${script}`, stored);
    state.scriptsVersion += 1;
    return ok(c, { id: script, created_on: stored.createdOn, modified_on: new Date(now()).toISOString() });
  });

  app.get(base, (c) => {
    const { ns, script } = c.req.param();
    const found = state.script(ns, script);
    if (found === undefined)
      return fail(c, 404, SCRIPT_NOT_FOUND, "This Worker does not exist on your account.");
    return ok(c, { script: { id: found.name, created_on: found.createdOn, tags: found.tags } });
  });

  app.delete(base, (c) => {
    const { ns, script } = c.req.param();
    if (!state.scripts.delete(`${ns}/${script}`)) {
      return fail(c, 404, SCRIPT_NOT_FOUND, "This Worker does not exist on your account.");
    }
    state.scriptsVersion += 1;
    return ok(c, null);
  });

  return app;
}
