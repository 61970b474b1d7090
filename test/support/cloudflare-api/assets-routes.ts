import { Hono } from "hono";
import { fail, ok } from "./envelope.js";
import type { CloudflareState } from "./state.js";
import type { UploadTokens } from "./upload-tokens.js";

const HASH = /^[0-9a-f]{32}$/;
/** Hashes per bucket the stand-in asks for together. */
const BUCKET_FILES = 10;

/**
 * The assets upload of Workers for Platforms, as Cloudflare documents it: a session per script's
 * manifest answers the hashes the namespace does not hold yet (assets are shared by hash across a
 * namespace), in buckets, with an upload JWT; when it lacks nothing, the JWT is the completion token.
 */
export function assetsRoutes(state: CloudflareState, tokens: UploadTokens, now: () => number): Hono {
  const app = new Hono();

  app.post(
    "/accounts/:account/workers/dispatch/namespaces/:ns/scripts/:script/assets-upload-session",
    async (c) => {
      const { ns, script } = c.req.param();
      const body = (await c.req.json().catch(() => undefined)) as { manifest?: unknown } | undefined;
      const manifest = body?.manifest;
      if (typeof manifest !== "object" || manifest === null)
        return fail(c, 400, 10021, "manifest is required");
      const entries = Object.entries(manifest as Record<string, { hash?: unknown; size?: unknown }>);
      for (const [path, entry] of entries) {
        if (
          !path.startsWith("/") ||
          typeof entry.hash !== "string" ||
          !HASH.test(entry.hash) ||
          typeof entry.size !== "number"
        ) {
          return fail(c, 400, 10021, `invalid manifest entry ${JSON.stringify(path)}`);
        }
      }
      const held = state.namespaceAssets(ns);
      const missing = [...new Set(entries.map(([, e]) => e.hash as string))].filter(
        (hash) => !held.has(hash),
      );
      const session = crypto.randomUUID();
      state.sessions.set(session, {
        namespace: ns,
        script,
        manifest: manifest as Record<string, { hash: string; size: number }>,
        missing: new Set(missing),
      });
      const purpose = missing.length === 0 ? "completion" : "upload";
      const jwt = await tokens.sign({ purpose, session, namespace: ns, script });
      const buckets: string[][] = [];
      for (let i = 0; i < missing.length; i += BUCKET_FILES) buckets.push(missing.slice(i, i + BUCKET_FILES));
      return ok(c, { jwt, buckets });
    },
  );

  app.post("/accounts/:account/workers/assets/upload", async (c) => {
    if (c.req.query("base64") !== "true") return fail(c, 400, 10021, "base64=true is required");
    const bearer = /^Bearer (.+)$/.exec(c.req.header("authorization") ?? "")?.[1];
    const claims = bearer === undefined ? undefined : await tokens.verify(bearer);
    const session = claims?.purpose === "upload" ? state.sessions.get(claims.session) : undefined;
    if (claims === undefined || session === undefined)
      return fail(c, 401, 10001, "invalid or expired upload JWT");
    const form = await c.req.formData().catch(() => undefined);
    if (form === undefined) return fail(c, 400, 10021, "expected multipart/form-data");
    const sizes = new Map(Object.values(session.manifest).map((e) => [e.hash, e.size]));
    const received: { hash: string; bytes: Buffer; type: string | undefined }[] = [];
    for (const [hash, part] of form.entries()) {
      const text = typeof part === "string" ? part : await part.text();
      const bytes = Buffer.from(text, "base64");
      if (!sizes.has(hash)) return fail(c, 400, 10021, `${hash} is not in this session's manifest`);
      if (bytes.length !== sizes.get(hash))
        return fail(c, 400, 10021, `${hash} is not ${sizes.get(hash)} bytes`);
      const type = typeof part === "string" || part.type === "" ? undefined : part.type;
      received.push({ hash, bytes, type });
    }
    const held = state.namespaceAssets(session.namespace);
    for (const { hash, bytes, type } of received) {
      held.set(hash, { bytes, contentType: type, uploadedAt: now() });
      session.missing.delete(hash);
    }
    if (session.missing.size > 0) return ok(c, { jwt: null }, 202);
    const jwt = await tokens.sign({ ...claims, purpose: "completion" });
    return ok(c, { jwt }, 201);
  });

  return app;
}
