import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createTestProject,
  deployFiles,
  identity,
  manifestOf,
  type TestProject,
} from "../support/deploy-flow.js";
import { api, edgeGet, type JsonResponse } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore, type StoreSnapshot } from "../support/store-snapshot.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

const SITE = { "/index.html": "<h1>same</h1>", "/app.js": "console.log('same')", "/about.html": "about" };

/** The tables of each database that differ between two snapshots. */
function changedTables(
  before: StoreSnapshot,
  after: StoreSnapshot,
): { metadata: string[]; platform: string[] } {
  const changed = (a: Record<string, string[]>, b: Record<string, string[]>) =>
    Object.keys(b).filter((table) => JSON.stringify(a[table]) !== JSON.stringify(b[table]));
  return {
    metadata: changed(before.metadata, after.metadata),
    platform: changed(before.platform, after.platform),
  };
}

/** Deploys `files` as a preview of the project: production stays where it is. */
async function deployPreview(files: Record<string, string>): Promise<void> {
  const { manifest, byHash } = await manifestOf(p.slug, files);
  const prepared = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
    token: p.token,
    body: { ...identity(p), manifest },
  });
  const bucket = prepared.body.buckets[0].map((hash: string) => ({ hash, bytes: byHash.get(hash)! }));
  const uploaded = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, bucket);
  const previewed = await api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
    token: p.token,
    body: {
      ...identity(p),
      deployId: prepared.body.deployId,
      completionJwt: uploaded.body.result.jwt,
      preview: true,
    },
  });
  expect(previewed.status).toBe(200);
}

/**
 * The digest as contract §3 defines it, written out here rather than imported, so that a change
 * to the server's definition fails these tests: SHA-256 of `path NUL hash NUL size LF` per entry,
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

let server: TestServer;
let p: TestProject;
beforeEach(async () => {
  server = await startTestServer();
  p = await createTestProject(server.urls.api, "unchanged");
});
afterEach(async () => {
  await server.stop();
});

/**
 * Checks an unchanged answer to a prepare made 10 days after `deployed`: production's revision,
 * the expiry renewed PROJECT_TTL_SECONDS from the prepare, no row changed but the project's expiry
 * (and the site's, which the edge reads), and the edge serving past the first expiry.
 */
async function expectOnlyRenewed(res: JsonResponse, deployed: any, before: StoreSnapshot): Promise<void> {
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    unchanged: true,
    revisionId: deployed.revisionId,
    project: { ...deployed.project, expiresAt: expect.any(String) },
    urls: { production: deployed.productionUrl, revision: deployed.revisionUrl },
  });
  const renewedUntil = Date.parse(res.body.project.expiresAt);
  // The test clock also runs with real time: a few ms.
  const ttl = server.config.projectTtlSeconds * 1000;
  expect(renewedUntil).toBeGreaterThan(Date.parse(deployed.project.expiresAt) + 9 * 86_400_000);
  expect(renewedUntil).toBeLessThanOrEqual(server.clock.now() + ttl);
  expect(renewedUntil).toBeGreaterThan(server.clock.now() + ttl - 5_000);
  expect(changedTables(before, snapshotStore(server.dataDir))).toEqual({
    metadata: ["projects"],
    platform: ["sites"],
  });
  server.clock.advance(server.config.projectTtlSeconds - 5 * 86_400);
  expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/app.js")).status).toBe(200);
}

describe("POST prepare with skipUnchanged", () => {
  /** Prepares `files` (listed in the given order) with the flag or without. */
  async function prepare(files: Record<string, string>, skipUnchanged?: boolean) {
    const { manifest } = await manifestOf(p.slug, files);
    return api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest, ...(skipUnchanged === undefined ? {} : { skipUnchanged }) },
    });
  }

  it("POST prepare: production's own files, listed in another order, are answered unchanged; nothing but the expiry changes", async () => {
    const { deployed } = await deployFiles(server.urls.api, p, SITE);
    const reversed = Object.fromEntries(Object.entries(SITE).reverse());
    server.clock.advance(10 * 86_400);
    const before = snapshotStore(server.dataDir);

    await expectOnlyRenewed(await prepare(reversed, true), deployed, before);
  });

  it("POST prepare: one file changed, or one more file, is the usual prepare answer", async () => {
    await deployFiles(server.urls.api, p, SITE);
    for (const files of [
      { ...SITE, "/app.js": "console.log('new')" },
      { ...SITE, "/extra.txt": "more" },
    ]) {
      const res = await prepare(files, true);
      expect(res.status).toBe(200);
      expect(res.body.unchanged).toBeUndefined();
      expect(res.body.deployId).toEqual(expect.any(String));
      expect(res.body.buckets).toHaveLength(1);
    }
  });

  it("POST prepare: without skipUnchanged (or false) an unchanged manifest gets the usual answer", async () => {
    await deployFiles(server.urls.api, p, SITE);
    for (const flag of [undefined, false]) {
      const res = await prepare(SITE, flag);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(
        [
          "accountId",
          "buckets",
          "deployId",
          "expiresAt",
          "project",
          "revisionId",
          "uploadJwt",
          "urls",
        ].sort(),
      );
      expect(res.body.buckets).toEqual([]);
    }
  });

  it("POST prepare: compared with production, not with a later preview or the first deploy of a project", async () => {
    expect((await prepare(SITE, true)).body.unchanged).toBeUndefined();
    const { deployed } = await deployFiles(server.urls.api, p, SITE);
    const preview = { ...SITE, "/index.html": "<h1>preview</h1>" };
    await deployPreview(preview);

    expect((await prepare(preview, true)).body.unchanged).toBeUndefined();
    const same = await prepare(SITE, true);
    expect(same.body).toMatchObject({ unchanged: true, revisionId: deployed.revisionId });
  });

  it("POST prepare: skipUnchanged that is not a boolean is 400 INVALID_REQUEST, nothing changed", async () => {
    await deployFiles(server.urls.api, p, SITE);
    const before = snapshotStore(server.dataDir);
    const { manifest } = await manifestOf(p.slug, SITE);
    const res = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest, skipUnchanged: "yes" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_REQUEST");
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });
});

describe("POST prepare with manifestDigest", () => {
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
    await expectOnlyRenewed(res, deployed, before);
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
    await deployPreview(preview);
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
