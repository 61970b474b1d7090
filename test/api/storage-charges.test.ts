import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerConfig } from "../../src/server/index.js";
import { hex64, manifestOf, type TestProject } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { startTestServer } from "../support/server.js";

// Issue 31, item 2: stored bytes (manifest rows, revisions, compressed variants) count against the
// project's quota and the quota of the client address that created the projects. The charges
// below are contract §1's, computed here from its rule rather than read from the code.
type Manifest = Record<string, { hash: string; size: number }>;
type Client = TestProject & { address: string };

const REVISION_BYTES = 1024;
/** A manifest row: 256 bytes and 4 per byte of its path (short paths here). */
const rowCharge = (path: string) => 256 + 4 * Buffer.byteLength(path);

function storageChargeSuite(name: string, database: () => Partial<ServerConfig>): void {
  describe(name, () => {
    let server: Awaited<ReturnType<typeof startTestServer>>;
    beforeAll(async () => {
      server = await startTestServer({
        ...database(),
        projectQuotaBytes: 2 * 1024 * 1024,
        pendingQuotaBytes: 0,
        clientQuotaBytes: 0,
        revisionsKept: 2,
        revisionsMax: 3,
        // Files over 64 KiB are streamed, and their compressed variants kept on disk.
        edgeCacheBytes: 64 * 1024,
        trustProxy: true,
        createLimitPerAddress: 0,
        createLimitPerFingerprint: 0,
        prepareLimitPerAddress: 0,
        prepareLimitPerProject: 0,
      });
    });
    afterAll(async () => server.stop());

    let n = 0;
    const create = async (address: string, url = server.urls.api): Promise<Client> => {
      const label = `charges-${name}-${n++}`;
      const body = { projectHash: hex64(`${label}-hash`), anonFingerprint: hex64(`${label}-fp`) };
      const res = await api(url, "POST", "/projects", { body, headers: { "x-forwarded-for": address } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return {
        ...body,
        slug: res.body.project.projectSlug,
        token: res.body.apiToken,
        project: res.body.project,
        address,
      };
    };
    const prepare = (p: Client, manifest: Manifest, url = server.urls.api) =>
      api(url, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { projectHash: p.projectHash, anonFingerprint: p.anonFingerprint, manifest },
        headers: { "x-forwarded-for": p.address },
      });
    /** Prepares, uploads and completes; returns the deploy's answer. */
    const deploy = async (
      p: Client,
      files: Record<string, string | Buffer>,
      options: { preview?: boolean; url?: string } = {},
    ) => {
      const url = options.url ?? server.urls.api;
      const { manifest, byHash } = await manifestOf(p.slug, files);
      const prepared = await prepare(p, manifest, url);
      if (prepared.status !== 200) return prepared;
      let jwt: string = prepared.body.uploadJwt;
      for (const bucket of prepared.body.buckets as string[][]) {
        const parts = bucket.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
        const uploaded = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, parts);
        expect(uploaded.status).toBeLessThan(300);
        if (uploaded.status === 201) jwt = uploaded.body.result.jwt;
      }
      return api(url, "POST", `/projects/${p.slug}/deploy`, {
        token: p.token,
        body: {
          projectHash: p.projectHash,
          anonFingerprint: p.anonFingerprint,
          deployId: prepared.body.deployId,
          completionJwt: jwt,
          preview: options.preview ?? false,
        },
        headers: { "x-forwarded-for": p.address },
      });
    };

    it("POST prepare: previews of a 2,000-path manifest naming one 1-byte file are refused 413 QUOTA_EXCEEDED (project) once their rows reach PROJECT_QUOTA_BYTES", async () => {
      const p = await create("10.31.1.1");
      const paths = Array.from({ length: 2000 }, (_, i) => `/p${String(i).padStart(4, "0")}.bin`);
      const files = Object.fromEntries(paths.map((path) => [path, "x"]));
      const revision = REVISION_BYTES + paths.reduce((sum, path) => sum + rowCharge(path), 0);
      // 3 revisions of 2,000 rows (about 0.6 MB each) and the one byte they share fit in 2 MiB.
      for (let i = 0; i < 3; i++) {
        const res = await deploy(p, files, { preview: true });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      const kept = 3 * revision + 1;
      const { manifest } = await manifestOf(p.slug, files);
      const refused = await prepare(p, manifest);
      expect(refused.status, JSON.stringify(refused.body)).toBe(413);
      expect(refused.body.error).toMatchObject({
        code: "QUOTA_EXCEEDED",
        quota: "project",
        limitBytes: 2 * 1024 * 1024,
        remainingBytes: 2 * 1024 * 1024 - kept,
      });
      expect(refused.body.error.message).toContain("PROJECT_QUOTA_BYTES");
    });

    it("POST prepare: 413 QUOTA_EXCEEDED (client) once the projects one address created in CLIENT_QUOTA_WINDOW_SECONDS keep CLIENT_QUOTA_BYTES; other addresses and projects created before the window are not counted", async () => {
      const limited = await startTestServer({
        ...database(),
        projectQuotaBytes: 0,
        pendingQuotaBytes: 0,
        clientQuotaBytes: 30_000,
        clientQuotaWindowSeconds: 3600,
        trustProxy: true,
        createLimitPerAddress: 0,
        createLimitPerFingerprint: 0,
        prepareLimitPerAddress: 0,
        prepareLimitPerProject: 0,
      });
      try {
        const url = limited.urls.api;
        const one = (bytes: Buffer) => ({ "/a.bin": bytes });
        const each = 10_000 + REVISION_BYTES + rowCharge("/a.bin");
        const [a, b, c] = [
          await create("10.31.2.1", url),
          await create("10.31.2.1", url),
          await create("10.31.2.1", url),
        ];
        expect((await deploy(a, one(randomBytes(10_000)), { url })).status).toBe(200);
        expect((await deploy(b, one(randomBytes(10_000)), { url })).status).toBe(200);
        const { manifest } = await manifestOf(c.slug, one(randomBytes(10_000)));
        const refused = await prepare(c, manifest, url);
        expect(refused.status, JSON.stringify(refused.body)).toBe(413);
        expect(refused.body.error).toMatchObject({
          code: "QUOTA_EXCEEDED",
          quota: "client",
          limitBytes: 30_000,
          remainingBytes: 30_000 - 2 * each,
        });
        expect(refused.body.error.message).toContain("CLIENT_QUOTA_BYTES");
        // Another address's project is its own client's.
        const other = await create("10.31.2.2", url);
        expect((await deploy(other, one(randomBytes(10_000)), { url })).status).toBe(200);
        // Once the window has passed, those projects no longer count for their creator.
        limited.clock.advance(3601);
        expect((await prepare(c, manifest, url)).status).toBe(200);
      } finally {
        await limited.stop();
      }
    });

    it("POST deploy: previews never keep more than REVISIONS_MAX revisions, young or not; the production one is kept and the pruned ones answer 404", async () => {
      const p = await create("10.31.3.1");
      const production = await deploy(p, { "/index.html": "<p>production</p>" });
      expect(production.status).toBe(200);
      const previews: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await deploy(p, { "/index.html": `<p>preview ${i}</p>` }, { preview: true });
        expect(res.status).toBe(200);
        previews.push(res.body.revisionId);
      }
      const state = await api(server.urls.api, "POST", `/projects/${p.slug}/state`, {
        token: p.token,
        body: { projectHash: p.projectHash, anonFingerprint: p.anonFingerprint },
      });
      const kept = state.body.revisions.map((r: { revisionId: string }) => r.revisionId);
      expect(kept).toEqual([...previews.slice(2).reverse(), production.body.revisionId]);
      const pruned = await edgeGet(server.urls.edge, `${previews[0]}--${p.slug}.localhost`, "/");
      expect(pruned.status).toBe(404);
      const newest = await edgeGet(server.urls.edge, `${previews[4]}--${p.slug}.localhost`, "/");
      expect(newest.body.toString()).toBe("<p>preview 4</p>");
    });

    it("POST deploy: 413 QUOTA_EXCEEDED (project) for the second of two deploys prepared at once that together pass PROJECT_QUOTA_BYTES; it publishes nothing", async () => {
      const p = await create("10.31.5.1");
      const first = { "/a.bin": randomBytes(1_200_000) };
      const second = { "/b.bin": randomBytes(1_200_000) };
      const prepared = [];
      for (const files of [first, second]) {
        const { manifest, byHash } = await manifestOf(p.slug, files);
        const res = await prepare(p, manifest);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const parts = res.body.buckets.flat().map((hash: string) => ({ hash, bytes: byHash.get(hash)! }));
        const uploaded = await uploadBucket(res.body.urls.upload, res.body.uploadJwt, parts);
        expect(uploaded.status).toBe(201);
        prepared.push({
          deployId: res.body.deployId,
          jwt: uploaded.body.result.jwt,
          revisionId: res.body.revisionId,
        });
      }
      const complete = (at: { deployId: string; jwt: string }) =>
        api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
          token: p.token,
          body: {
            projectHash: p.projectHash,
            anonFingerprint: p.anonFingerprint,
            deployId: at.deployId,
            completionJwt: at.jwt,
          },
        });
      expect((await complete(prepared[0]!)).status).toBe(200);
      const refused = await complete(prepared[1]!);
      expect(refused.status, JSON.stringify(refused.body)).toBe(413);
      expect(refused.body.error).toMatchObject({ code: "QUOTA_EXCEEDED", quota: "project" });
      const site = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/a.bin");
      expect(site.status).toBe(200);
      const notPublished = await edgeGet(
        server.urls.edge,
        `${prepared[1]!.revisionId}--${p.slug}.localhost`,
        "/b.bin",
      );
      expect(notPublished.status).toBe(404);
    });

    it("POST prepare: a compressible file the edge keeps variants of on disk counts three times its size (413 QUOTA_EXCEEDED); the same bytes as an image count once", async () => {
      const p = await create("10.31.4.1");
      // 800 KB of text: with its gzip and brotli files, 2.4 MB, over the 2 MiB quota.
      const text = Buffer.from(randomBytes(600_000).toString("base64"));
      const { manifest } = await manifestOf(p.slug, { "/big.txt": text });
      const refused = await prepare(p, manifest);
      expect(refused.status, JSON.stringify(refused.body)).toBe(413);
      expect(refused.body.error).toMatchObject({ code: "QUOTA_EXCEEDED", quota: "project" });
      expect(refused.body.error.message).toContain(
        `${3 * text.length + REVISION_BYTES + rowCharge("/big.txt")} bytes`,
      );
      const { manifest: image } = await manifestOf(p.slug, { "/big.png": text });
      expect((await prepare(p, image)).status).toBe(200);
    });
  });
}

storageChargeSuite("storage charges on SQLite", () => ({}));

await describePostgres("storage charges on PostgreSQL", () => {
  storageChargeSuite("on PostgreSQL", () => {
    const options = testPostgres();
    return { databaseUrl: options.url, databaseSchema: options.schema };
  });
});
