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

describe("POST prepare with skipUnchanged", () => {
  let server: TestServer;
  let p: TestProject;
  beforeEach(async () => {
    server = await startTestServer();
    p = await createTestProject(server.urls.api, "unchanged");
  });
  afterEach(async () => {
    await server.stop();
  });

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

    const res = await prepare(reversed, true);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      unchanged: true,
      revisionId: deployed.revisionId,
      project: { ...deployed.project, expiresAt: expect.any(String) },
      urls: { production: deployed.productionUrl, revision: deployed.revisionUrl },
    });
    const renewedUntil = Date.parse(res.body.project.expiresAt);
    // PROJECT_TTL_SECONDS from the prepare (the test clock also runs with real time: a few ms).
    const ttl = server.config.projectTtlSeconds * 1000;
    expect(renewedUntil).toBeGreaterThan(Date.parse(deployed.project.expiresAt) + 9 * 86_400_000);
    expect(renewedUntil).toBeLessThanOrEqual(server.clock.now() + ttl);
    expect(renewedUntil).toBeGreaterThan(server.clock.now() + ttl - 5_000);

    // No deploy, no session, no row but the project's expiry (and the site's, which the edge reads).
    const after = snapshotStore(server.dataDir);
    const changed = (a: Record<string, string[]>, b: Record<string, string[]>) =>
      Object.keys(b).filter((table) => JSON.stringify(a[table]) !== JSON.stringify(b[table]));
    expect(changed(before.metadata, after.metadata)).toEqual(["projects"]);
    expect(changed(before.platform, after.platform)).toEqual(["sites"]);

    // The renewal reached the edge: past the first expiry, the site still answers.
    server.clock.advance(server.config.projectTtlSeconds - 5 * 86_400);
    expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/app.js")).status).toBe(200);
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
    const { manifest, byHash } = await manifestOf(p.slug, preview);
    const prepared = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });
    const { uploadBucket } = await import("../support/multipart.js");
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
