import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createTestProject,
  deployFiles,
  identity,
  manifestOf,
  type TestProject,
} from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

const SITE = { "/index.html": "<h1>same</h1>", "/app.js": "console.log('same')", "/about.html": "about" };

/**
 * The digest as contract §3 defines it, written out here rather than imported, so that a change
 * to the server's definition fails this test: SHA-256 of `path NUL hash NUL size LF` per entry,
 * in path order, paths relative to the site with their leading `/`.
 */
async function digestOf(slug: string, files: Record<string, string>): Promise<string> {
  const { manifest } = await manifestOf(slug, files);
  const lines = Object.entries(manifest)
    .map(([key, { hash, size }]) => ({ path: key.slice(slug.length + 1), hash, size }))
    .sort((a, b) => (a.path < b.path ? -1 : 1))
    .map(({ path, hash, size }) => `${path}\0${hash}\0${size}\n`);
  return createHash("sha256").update(lines.join("")).digest("hex");
}

describe("POST prepare with manifestDigest", () => {
  let server: TestServer;
  let p: TestProject;
  beforeEach(async () => {
    server = await startTestServer();
    p = await createTestProject(server.urls.api, "by-digest");
  });
  afterEach(async () => {
    await server.stop();
  });

  const prepare = (body: Record<string, unknown>, project = p) =>
    api(server.urls.api, "POST", `/projects/${project.slug}/prepare`, {
      token: project.token,
      body: { ...identity(project), ...body },
    });

  it("POST prepare: production's manifest digest alone is answered unchanged; nothing but the expiry changes", async () => {
    const { deployed } = await deployFiles(server.urls.api, p, SITE);
    server.clock.advance(10 * 86_400);
    const before = snapshotStore(server.dataDir);

    const res = await prepare({ skipUnchanged: true, manifestDigest: await digestOf(p.slug, SITE) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      unchanged: true,
      revisionId: deployed.revisionId,
      project: { ...deployed.project, expiresAt: expect.any(String) },
      urls: { production: deployed.productionUrl, revision: deployed.revisionUrl },
    });
    expect(Date.parse(res.body.project.expiresAt)).toBeGreaterThan(
      Date.parse(deployed.project.expiresAt) + 9 * 86_400_000,
    );
    const after = snapshotStore(server.dataDir);
    const changed = (a: Record<string, string[]>, b: Record<string, string[]>) =>
      Object.keys(b).filter((table) => JSON.stringify(a[table]) !== JSON.stringify(b[table]));
    expect(changed(before.metadata, after.metadata)).toEqual(["projects"]);
    expect(changed(before.platform, after.platform)).toEqual(["sites"]);
    // The renewal reached the edge: past the first expiry, the site still answers.
    server.clock.advance(server.config.projectTtlSeconds - 5 * 86_400);
    expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/app.js")).status).toBe(200);
  });

  it("POST prepare: a digest production was not deployed from is 409 MANIFEST_CHANGED and changes nothing", async () => {
    // Before any deploy, then after one, with the digest of other files.
    const other = { ...SITE, "/app.js": "console.log('new')" };
    for (const deployFirst of [false, true]) {
      if (deployFirst) await deployFiles(server.urls.api, p, SITE);
      const before = snapshotStore(server.dataDir);
      const res = await prepare({ skipUnchanged: true, manifestDigest: await digestOf(p.slug, other) });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("MANIFEST_CHANGED");
      expect(snapshotStore(server.dataDir)).toEqual(before);
    }
  });

  it("POST prepare: the digest of a preview is not production's, 409 MANIFEST_CHANGED", async () => {
    await deployFiles(server.urls.api, p, SITE);
    const preview = { ...SITE, "/index.html": "<h1>preview</h1>" };
    const { manifest, byHash } = await manifestOf(p.slug, preview);
    const prepared = await prepare({ manifest });
    const { uploadBucket } = await import("../support/multipart.js");
    const bucket = prepared.body.buckets[0].map((hash: string) => ({ hash, bytes: byHash.get(hash)! }));
    const uploaded = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, bucket);
    const body = { deployId: prepared.body.deployId, completionJwt: uploaded.body.result.jwt, preview: true };
    const previewed = await api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
      token: p.token,
      body: { ...identity(p), ...body },
    });
    expect(previewed.status).toBe(200);
    const res = await prepare({ skipUnchanged: true, manifestDigest: await digestOf(p.slug, preview) });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("MANIFEST_CHANGED");
  });

  it("POST prepare: a digest with a manifest, without skipUnchanged, or malformed is 400 INVALID_REQUEST, nothing changed", async () => {
    await deployFiles(server.urls.api, p, SITE);
    const digest = await digestOf(p.slug, SITE);
    const { manifest } = await manifestOf(p.slug, SITE);
    const before = snapshotStore(server.dataDir);
    for (const body of [
      { manifest, skipUnchanged: true, manifestDigest: digest },
      { manifestDigest: digest },
      { skipUnchanged: false, manifestDigest: digest },
      { skipUnchanged: true, manifestDigest: digest.slice(1) },
      { skipUnchanged: true, manifestDigest: 42 },
    ]) {
      const res = await prepare(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
      expect(res.body.error.message).toMatch(/manifestDigest/);
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("POST prepare: another project's digest is checked against this project's production only", async () => {
    const other = await createTestProject(server.urls.api, "by-digest-other");
    await deployFiles(server.urls.api, other, { "/index.html": "other" });
    await deployFiles(server.urls.api, p, SITE);
    const res = await prepare({
      skipUnchanged: true,
      manifestDigest: await digestOf(other.slug, { "/index.html": "other" }),
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("MANIFEST_CHANGED");
    // And the identity is still this project's own: another's is 403 before any comparison.
    const stranger = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(other), skipUnchanged: true, manifestDigest: await digestOf(p.slug, SITE) },
    });
    expect(stranger.status).toBe(403);
    expect(stranger.body.error.code).toBe("OWNERSHIP_MISMATCH");
  });
});
