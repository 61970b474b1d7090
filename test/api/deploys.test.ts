import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepExpired } from "../../src/core/operations/index.js";
import {
  createTestProject,
  deployFiles,
  identity,
  manifestOf,
  type TestProject,
} from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

describe("prepare and deploy", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let p: TestProject;
  beforeAll(async () => {
    server = await startTestServer({ maxAssets: 5, maxAssetBytes: 1000, maxBodyBytes: 4096 });
    p = await createTestProject(server.urls.api, "deploys");
  });
  afterAll(async () => server.stop());

  const prepare = (manifest: unknown, project = p) =>
    api(server.urls.api, "POST", `/projects/${project.slug}/prepare`, {
      token: project.token,
      body: { ...identity(project), manifest },
    });
  const deploy = (deployId: string, completionJwt: string, project = p) =>
    api(server.urls.api, "POST", `/projects/${project.slug}/deploy`, {
      token: project.token,
      body: { ...identity(project), deployId, completionJwt },
    });

  it("POST prepare: 200 with the contract's fields, buckets holding each missing hash once", async () => {
    const { manifest } = await manifestOf(p.slug, { "/index.html": "a", "/copy.html": "a", "/b.css": "b" });
    const res = await prepare(manifest);
    expect(res.status).toBe(200);
    const body = res.body;
    expect(Object.keys(body).sort()).toEqual(
      ["accountId", "buckets", "deployId", "expiresAt", "project", "revisionId", "uploadJwt", "urls"].sort(),
    );
    expect(body.accountId).toMatch(/^[0-9a-f]{32}$/);
    expect(body.revisionId).toMatch(/^[a-z0-9]{10}$/);
    expect(body.deployId).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    // Same bytes at two paths with the same extension are one asset.
    expect(body.buckets.flat().sort()).toEqual(
      [...new Set(Object.values(manifest).map((v) => v.hash))].sort(),
    );
    const edgePort = new URL(server.urls.edge).port;
    expect(body.urls).toEqual({
      upload: `${server.urls.upload}/accounts/${body.accountId}/workers/assets/upload?base64=true`,
      production: `http://${p.slug}.localhost:${edgePort}/`,
      revision: `http://${body.revisionId}--${p.slug}.localhost:${edgePort}/`,
    });
    const ttl = Date.parse(body.expiresAt) - server.clock.now();
    expect(ttl).toBeGreaterThan(3_590_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
    expect(body.project.projectSlug).toBe(p.slug);
  });

  it("POST prepare: 400 INVALID_MANIFEST for every malformed manifest", async () => {
    const good = { hash: "0".repeat(32), size: 1 };
    const cases: unknown[] = [
      "nope",
      [good],
      { [`/other/index.html`]: good },
      { [`/${p.slug}`]: good },
      { [`/${p.slug}/`]: good },
      { [`/${p.slug}/a//b`]: good },
      { [`/${p.slug}/../x`]: good },
      { [`/${p.slug}/a/./b`]: good },
      { [`/${p.slug}/a\\b`]: good },
      { [`/${p.slug}/a\u0000b`]: good },
      { [`/${p.slug}/a`]: { hash: "XYZ", size: 1 } },
      { [`/${p.slug}/a`]: { hash: "0".repeat(32), size: -1 } },
      { [`/${p.slug}/a`]: { hash: "0".repeat(32), size: 1.5 } },
      { [`/${p.slug}/a`]: { hash: "0".repeat(32), size: 1001 } },
      { [`/${p.slug}/a`]: "x" },
      Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [`/${p.slug}/${i}`, good])),
    ];
    const before = snapshotStore(server.dataDir);
    for (const manifest of cases) {
      const res = await prepare(manifest);
      expect(res.status, JSON.stringify(manifest)).toBe(400);
      expect(res.body.error.code).toBe("INVALID_MANIFEST");
    }
    const proto = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      raw: `{"projectHash":"${p.projectHash}","anonFingerprint":"${p.anonFingerprint}","manifest":{"__proto__":{"hash":"${"0".repeat(32)}","size":1}}}`,
      headers: { "content-type": "application/json" },
    });
    expect(proto.status).toBe(400);
    expect(proto.body.error.code).toBe("INVALID_MANIFEST");
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("POST prepare: 413 PAYLOAD_TOO_LARGE over the body limit, nothing changed", async () => {
    const before = snapshotStore(server.dataDir);
    const res = await prepare({ [`/${p.slug}/a`]: { hash: "0".repeat(32), size: 1, pad: "x".repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("POST deploy: 200 with the final revision; again with another token 409 DEPLOY_ALREADY_COMPLETED, nothing changed", async () => {
    const q = await createTestProject(server.urls.api, "deploys-completed");
    const { prepared, deployed } = await deployFiles(server.urls.api, q, { "/index.html": "v1" });
    expect(deployed.revisionId).toBe(prepared.revisionId);
    expect(deployed.revisionUrl).toBe(prepared.urls.revision);
    expect(deployed.productionUrl).toBe(prepared.urls.production);
    expect(deployed.project.revisionId).toBe(prepared.revisionId);
    expect(Object.keys(deployed).sort()).toEqual(["productionUrl", "project", "revisionId", "revisionUrl"]);
    const before = snapshotStore(server.dataDir);
    // The upload token is not the completion token the deploy was completed with.
    const again = await deploy(prepared.deployId, prepared.uploadJwt, q);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("DEPLOY_ALREADY_COMPLETED");
    expect(snapshotStore(server.dataDir)).toEqual(before);
    expect((await edgeGet(server.urls.edge, `${q.slug}.localhost`, "/")).body.toString()).toBe("v1");
  });

  it("POST deploy: idempotent with the same deployId and completion token: the same result, nothing changed", async () => {
    const q = await createTestProject(server.urls.api, "deploys-idempotent");
    const { manifest, byHash } = await manifestOf(q.slug, { "/index.html": "idempotent" });
    const prepared = (await prepare(manifest, q)).body;
    const parts = prepared.buckets.flat().map((hash: string) => ({ hash, bytes: byHash.get(hash)! }));
    const uploaded = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, parts);
    const jwt = uploaded.body.result.jwt;
    const first = await deploy(prepared.deployId, jwt, q);
    expect(first.status).toBe(200);
    const before = snapshotStore(server.dataDir);
    const second = await deploy(prepared.deployId, jwt, q);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("POST deploy: 404 DEPLOY_NOT_FOUND for an unknown deploy or another project's", async () => {
    const other = await createTestProject(server.urls.api, "other-deploys");
    const { manifest } = await manifestOf(other.slug, { "/x.txt": "x" });
    const theirs = (await prepare(manifest, other)).body;
    const before = snapshotStore(server.dataDir);
    for (const deployId of ["AAAAAAAAAAAAAAAAAAAAAA", theirs.deployId]) {
      const res = await deploy(deployId, "x");
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("DEPLOY_NOT_FOUND");
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("POST deploy: 400 INVALID_REQUEST for siteRules that are not { redirects?, headers? } texts, nothing changed", async () => {
    const { manifest } = await manifestOf(p.slug, { "/rules.txt": "r" });
    const prepared = (await prepare(manifest)).body;
    const before = snapshotStore(server.dataDir);
    for (const siteRules of [{ redirect: "/a /b" }, { headers: 42 }, "/a /b"]) {
      const res = await api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
        token: p.token,
        body: { ...identity(p), deployId: prepared.deployId, completionJwt: prepared.uploadJwt, siteRules },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
      expect(res.body.error.message).toContain("siteRules");
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("POST deploy: 422 INVALID_COMPLETION for a forged token or while assets are missing", async () => {
    const { manifest } = await manifestOf(p.slug, { "/missing.txt": "never uploaded" });
    const prepared = (await prepare(manifest)).body;
    const before = snapshotStore(server.dataDir);
    const forged = await deploy(prepared.deployId, "eyJhbGciOiJIUzI1NiJ9.e30.forged");
    expect(forged.status).toBe(422);
    expect(forged.body.error.code).toBe("INVALID_COMPLETION");
    // The upload token is not a completion token while buckets remain.
    const early = await deploy(prepared.deployId, prepared.uploadJwt);
    expect(early.status).toBe(422);
    expect(early.body.error.code).toBe("INVALID_COMPLETION");
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("POST deploy: a completed deploy publishes atomically; the previous revision URL keeps serving", async () => {
    const first = await deployFiles(server.urls.api, p, { "/index.html": "first" });
    const second = await deployFiles(server.urls.api, p, { "/index.html": "second" });
    const host = `${p.slug}.localhost`;
    expect((await edgeGet(server.urls.edge, host, "/")).body.toString()).toBe("second");
    const oldHost = new URL(first.deployed.revisionUrl).hostname;
    expect((await edgeGet(server.urls.edge, oldHost, "/")).body.toString()).toBe("first");
    const newHost = new URL(second.deployed.revisionUrl).hostname;
    expect((await edgeGet(server.urls.edge, newHost, "/")).body.toString()).toBe("second");
  });

  it("POST prepare: content only another project holds is asked for again (deduplication is per project)", async () => {
    const other = await createTestProject(server.urls.api, "shared-content");
    await deployFiles(server.urls.api, other, { "/shared.js": "shared bytes" });
    const { manifest } = await manifestOf(p.slug, { "/shared.js": "shared bytes" });
    const res = await prepare(manifest);
    expect(res.body.buckets).toEqual([[manifest[`/${p.slug}/shared.js`]!.hash]]);
    const early = await deploy(res.body.deployId, res.body.uploadJwt);
    expect(early.status).toBe(422);
    expect(early.body.error.code).toBe("INVALID_COMPLETION");
  });
});

describe("deploy expiry", () => {
  it("POST deploy: 410 DEPLOY_EXPIRED once the preparation record outlived DEPLOY_TTL_SECONDS", async () => {
    const server = await startTestServer();
    try {
      const p = await createTestProject(server.urls.api, "expiring-deploy");
      const { manifest } = await manifestOf(p.slug, { "/a.txt": "a" });
      const prepared = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { ...identity(p), manifest },
      });
      expect(prepared.status).toBe(200);
      server.clock.advance(server.config.deployTtlSeconds + 1);
      // A sweep in between does not turn the answer into 404: expired records outlive their TTL.
      await sweepExpired(server.services);
      const before = snapshotStore(server.dataDir);
      const res = await api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
        token: p.token,
        body: { ...identity(p), deployId: prepared.body.deployId, completionJwt: prepared.body.uploadJwt },
      });
      expect(res.status).toBe(410);
      expect(res.body.error.code).toBe("DEPLOY_EXPIRED");
      expect(snapshotStore(server.dataDir)).toEqual(before);
    } finally {
      await server.stop();
    }
  });
});
