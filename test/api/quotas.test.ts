import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestProject,
  deployFiles,
  identity,
  manifestOf,
  type TestProject,
} from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";
import { completeDeploy } from "../support/upload-flow.js";

// Issue 14, item 3: one anonymous project uploaded 2,040 MiB in 28.6 s and never deployed.
type Manifest = Record<string, { hash: string; size: number }>;

describe("storage quotas", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({
      projectQuotaBytes: 12_000,
      pendingQuotaBytes: 15_000,
      // The clients of these tests come from addresses they choose.
      trustProxy: true,
      createLimitPerAddress: 0,
      prepareLimitPerAddress: 0,
    });
  });
  afterAll(async () => server.stop());

  let n = 0;
  const project = (address: string) =>
    createTestProject(server.urls.api, `quota-${n++}`).then((p) => ({ ...p, address }));
  const prepare = (p: TestProject & { address: string }, manifest: Manifest) =>
    api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
      headers: { "x-forwarded-for": p.address },
    });
  const files = (count: number, bytes: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`/f${i}.bin`, randomBytes(bytes)]));
  /** Prepares and expects a refusal that changed nothing. */
  const expectRefused = async (p: TestProject & { address: string }, manifest: Manifest) => {
    const before = snapshotStore(server.dataDir);
    const res = await prepare(p, manifest);
    expect(res.status, JSON.stringify(res.body)).toBe(413);
    expect(res.body.error.code).toBe("QUOTA_EXCEEDED");
    expect(snapshotStore(server.dataDir)).toEqual(before);
    return res.body.error;
  };

  it("POST prepare: 413 QUOTA_EXCEEDED past PROJECT_QUOTA_BYTES across the project's revisions, saying how much is left; nothing changed", async () => {
    const p = await project("10.1.0.1");
    // 6,000 bytes of content, a revision (1,024) and 3 rows of a 7-byte path (256 + 4 × 7 each).
    const first = await deployFiles(server.urls.api, p, files(3, 2000));
    expect(first.deployed.revisionId).toBeDefined();
    const kept = 6000 + 1024 + 3 * 284;

    const { manifest: tooMuch } = await manifestOf(p.slug, files(3, 2000));
    const error = await expectRefused(p, tooMuch);
    expect(error).toMatchObject({ quota: "project", limitBytes: 12_000, remainingBytes: 12_000 - kept });
    expect(error.message).toContain("PROJECT_QUOTA_BYTES");
    // A manifest over the quota by itself is refused before anything is written.
    const { manifest: alone } = await manifestOf(p.slug, files(1, 12_001));
    expect(await expectRefused(p, alone)).toMatchObject({ quota: "project", remainingBytes: 12_000 - kept });

    // A new revision up to what is left fits.
    const { manifest: fits } = await manifestOf(p.slug, files(1, 12_000 - kept - 1024 - 284));
    const ok = await prepare(p, fits);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it("POST prepare: 413 QUOTA_EXCEEDED past PENDING_QUOTA_BYTES prepared and not deployed from one address; deploying or expiry frees it", async () => {
    const a = await project("10.2.0.1");
    const b = await project("10.2.0.1");
    const elsewhere = await project("10.2.0.2");
    const aFiles = files(4, 2000);
    const { manifest: aManifest, byHash } = await manifestOf(a.slug, aFiles);
    // 8,000 bytes to upload and 4 manifest rows (284 each) pending from 10.2.0.1.
    const held = await prepare(a, aManifest);
    expect(held.status).toBe(200);

    const { manifest: bManifest } = await manifestOf(b.slug, files(4, 2000));
    const error = await expectRefused(b, bManifest);
    expect(error).toMatchObject({
      quota: "pending",
      limitBytes: 15_000,
      remainingBytes: 15_000 - 8000 - 4 * 284,
    });
    expect(error.message).toContain("PENDING_QUOTA_BYTES");
    // Another address has its own.
    const { manifest: otherManifest } = await manifestOf(elsewhere.slug, files(4, 2000));
    expect((await prepare(elsewhere, otherManifest)).status).toBe(200);

    // Once A deploys, its bytes are its project's, not pending any more.
    const parts = held.body.buckets.flat().map((hash: string) => ({ hash, bytes: byHash.get(hash)! }));
    const uploaded = await uploadBucket(held.body.urls.upload, held.body.uploadJwt, parts);
    expect(uploaded.status).toBe(201);
    expect(
      (await completeDeploy(server.urls.api, a, held.body.deployId, uploaded.body.result.jwt)).status,
    ).toBe(200);
    const fits = await prepare(b, bManifest);
    expect(fits.status, JSON.stringify(fits.body)).toBe(200);

    // And a preparation that expires frees its share.
    const { manifest: more } = await manifestOf(b.slug, files(4, 2000));
    expect((await prepare(b, more)).status).toBe(413);
    server.clock.advance(server.config.deployTtlSeconds + 1);
    expect((await prepare(b, more)).status).toBe(200);
  });

  it("upload: a part larger than its manifest entry declared is refused 413 (10008), nothing stored", async () => {
    const p = await project("10.3.0.1");
    const content = randomBytes(200_000);
    const { manifest } = await manifestOf(p.slug, { "/big.bin": content });
    const entry = manifest[`/${p.slug}/big.bin`]!;
    // The manifest lies to pass the quotas: it claims 100 bytes.
    entry.size = 100;
    const prepared = await prepare(p, manifest);
    expect(prepared.status).toBe(200);
    const before = snapshotStore(server.dataDir);
    const refused = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, [
      { hash: entry.hash, bytes: content },
    ]);
    expect(refused.status).toBe(413);
    expect(refused.body.errors[0].code).toBe(10008);
    expect(refused.body.errors[0].message).toContain("more than the 100 its manifest entry declared");
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });
});

describe("free space", () => {
  it("POST prepare: 507 INSUFFICIENT_STORAGE with less than MIN_FREE_BYTES free; nothing changed, and a deploy with nothing to upload still works", async () => {
    const server = await startTestServer({ minFreeBytes: Number.MAX_SAFE_INTEGER });
    try {
      const p = await createTestProject(server.urls.api, "full-disk");
      const { manifest } = await manifestOf(p.slug, { "/index.html": "<p>no room</p>" });
      const before = snapshotStore(server.dataDir);
      const res = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { ...identity(p), manifest },
      });
      expect(res.status).toBe(507);
      expect(res.body.error.code).toBe("INSUFFICIENT_STORAGE");
      expect(snapshotStore(server.dataDir)).toEqual(before);
      const empty = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { ...identity(p), manifest: {} },
      });
      expect(empty.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("upload: 507 (10009) once less than MIN_FREE_BYTES is free, before the body is read; nothing changed", async () => {
    const first = await startTestServer();
    const dataDir = first.dataDir;
    const p = await createTestProject(first.urls.api, "filled-since");
    const content = Buffer.from("<p>prepared while there was room</p>");
    const { manifest } = await manifestOf(p.slug, { "/index.html": content });
    const prepared = await api(first.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });
    expect(prepared.status).toBe(200);
    // The same data directory, now short of room: the session and its token live on.
    await first.close();
    const server = await startTestServer({ dataDir, minFreeBytes: Number.MAX_SAFE_INTEGER });
    try {
      const url = prepared.body.urls.upload.replace(
        new URL(first.urls.upload).origin,
        new URL(server.urls.upload).origin,
      );
      const before = snapshotStore(dataDir);
      const [hash] = prepared.body.buckets[0];
      const res = await uploadBucket(url, prepared.body.uploadJwt, [{ hash, bytes: content }]);
      expect(res.status).toBe(507);
      expect(res.body.errors[0].code).toBe(10009);
      expect(snapshotStore(dataDir)).toEqual(before);
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
