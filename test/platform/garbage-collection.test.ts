import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestProject, deleteProject, deployFiles, manifestOf } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";
import { storedBlobs, completeDeploy, jwtPayload, prepareFiles } from "../support/upload-flow.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

const HOUR = 3_600_000;

/** The asset hash of `content` at `path` (the extension takes part in it). */
async function hashOf(path: string, content: string): Promise<string> {
  const { manifest } = await manifestOf("any", { [path]: content });
  return manifest[`/any${path}`]!.hash;
}

/** Uploads every bucket of a prepared deploy; returns the completion token. */
async function uploadAll(prepared: any, byHash: Map<string, Buffer>): Promise<string> {
  let jwt: string = prepared.uploadJwt;
  for (const bucket of prepared.buckets as string[][]) {
    const parts = bucket.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
    const answer = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, parts);
    if (answer.status === 201) jwt = answer.body.result.jwt;
    else expect(answer.status).toBe(202);
  }
  return jwt;
}

describe("garbage collection", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it("delete: a deleted project's content is reclaimed; content another project uses survives and serves", async () => {
    const a = await createTestProject(server.urls.api, "gc-delete-a");
    const b = await createTestProject(server.urls.api, "gc-delete-b");
    const sharedCss = "body { background: #def }";
    await deployFiles(server.urls.api, a, {
      "/shared.css": sharedCss,
      "/index.html": "<p>only a</p>",
      "/old.txt": "a's first revision only",
    });
    // A second revision: the first one's files stay referenced while A lives (revision hosts).
    await deployFiles(server.urls.api, a, { "/shared.css": sharedCss, "/index.html": "<p>only a</p>" });
    // Uploaded in an open session of A, never deployed.
    const pending = await prepareFiles(server.urls.api, a, { "/pending.txt": "a's pending upload" });
    expect((await uploadAll(pending.prepared, pending.byHash)).length).toBeGreaterThan(0);
    await deployFiles(server.urls.api, b, { "/shared.css": sharedCss, "/index.html": "<p>only b</p>" });

    const shared = await hashOf("/shared.css", sharedCss);
    const bIndex = await hashOf("/index.html", "<p>only b</p>");
    const aOnly = [
      await hashOf("/index.html", "<p>only a</p>"),
      await hashOf("/old.txt", "a's first revision only"),
      await hashOf("/pending.txt", "a's pending upload"),
    ];
    const before = storedBlobs(server.dataDir);
    for (const hash of [shared, bIndex, ...aOnly]) expect(before.has(hash), hash).toBe(true);
    await server.platform.collectGarbage();
    for (const hash of [shared, bIndex, ...aOnly])
      expect(storedBlobs(server.dataDir).has(hash), hash).toBe(true);

    const deleted = await deleteProject(server.urls.api, a);
    expect(deleted.status).toBe(200);
    // The delete path reclaims at once, without waiting for a collection.
    let files = storedBlobs(server.dataDir);
    for (const hash of aOnly) expect(files.has(hash), hash).toBe(false);
    expect(files.has(shared)).toBe(true);
    expect(files.has(bIndex)).toBe(true);
    expect((await edgeGet(server.urls.edge, `${a.slug}.localhost`, "/shared.css")).status).toBe(404);

    const expectBServes = async () => {
      const css = await edgeGet(server.urls.edge, `${b.slug}.localhost`, "/shared.css");
      expect(css.status).toBe(200);
      expect(css.body.toString()).toBe(sharedCss);
      expect((await edgeGet(server.urls.edge, `${b.slug}.localhost`, "/")).body.toString()).toBe(
        "<p>only b</p>",
      );
    };
    await expectBServes();

    // A collection now, and one after every upload session has expired: B's revision holds them.
    await server.platform.collectGarbage();
    const later = await server.platform.collectGarbage(server.clock.now() + 2 * HOUR);
    expect(later.sessionsExpired).toBeGreaterThan(0);
    files = storedBlobs(server.dataDir);
    expect(files.has(shared)).toBe(true);
    expect(files.has(bIndex)).toBe(true);
    await expectBServes();

    // B is asked for the reclaimed content (it never had it), not for what it still holds.
    const again = await prepareFiles(server.urls.api, b, {
      "/old.txt": "a's first revision only",
      "/shared.css": sharedCss,
    });
    expect(again.prepared.buckets.flat()).toEqual([aOnly[1]]);
  });

  it("collectGarbage: content an open upload session needs is never reclaimed", async () => {
    const a = await createTestProject(server.urls.api, "gc-open-a");
    const b = await createTestProject(server.urls.api, "gc-open-b");
    await deployFiles(server.urls.api, a, { "/held.js": "export const held = 1;" });
    const held = await hashOf("/held.js", "export const held = 1;");
    const fresh = await hashOf("/fresh.js", "export const fresh = 2;");

    // B's session names A's content and its own; B sends both (deduplication is per project).
    const { prepared, byHash } = await prepareFiles(server.urls.api, b, {
      "/held.js": "export const held = 1;",
      "/fresh.js": "export const fresh = 2;",
    });
    expect(prepared.buckets.flat().sort()).toEqual([held, fresh].sort());

    // The only revision that named `held` goes away; B's open session still needs it.
    expect((await deleteProject(server.urls.api, a)).status).toBe(200);
    expect(storedBlobs(server.dataDir).has(held)).toBe(true);
    await server.platform.collectGarbage();
    expect(storedBlobs(server.dataDir).has(held)).toBe(true);

    // Uploaded but not deployed yet: kept while the session is open.
    const jwt = await uploadAll(prepared, byHash);
    await server.platform.collectGarbage();
    const files = storedBlobs(server.dataDir);
    expect(files.has(held)).toBe(true);
    expect(files.has(fresh)).toBe(true);

    expect((await completeDeploy(server.urls.api, b, prepared.deployId, jwt)).status).toBe(200);
    for (const [path, content] of [
      ["/held.js", "export const held = 1;"],
      ["/fresh.js", "export const fresh = 2;"],
    ] as const) {
      const served = await edgeGet(server.urls.edge, `${b.slug}.localhost`, path);
      expect(served.status, path).toBe(200);
      expect(served.body.toString(), path).toBe(content);
    }
  });
});

describe("garbage collection: expired upload sessions", () => {
  // A server each: a test moves and freezes the clock, and counts what a collection reclaims.
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(async () => server.stop());

  it("collectGarbage: content uploaded in a session that expired without a deploy is reclaimed", async () => {
    const p = await createTestProject(server.urls.api, "gc-expired");
    const files = { "/abandoned.html": "<p>never deployed</p>", "/abandoned.css": "p { color: gray }" };
    const { prepared, byHash } = await prepareFiles(server.urls.api, p, files);
    const hashes = [...byHash.keys()];
    await uploadAll(prepared, byHash);

    // While the session is open the content is kept, to its last millisecond.
    server.clock.freeze();
    expect((await server.platform.collectGarbage()).blobsDeleted).toBe(0);
    server.clock.advanceTo(Date.parse(prepared.expiresAt) - 1);
    const open = await server.platform.collectGarbage();
    expect(open.sessionsExpired).toBe(0);
    expect(open.blobsDeleted).toBe(0);
    for (const hash of hashes) expect(storedBlobs(server.dataDir).has(hash)).toBe(true);

    server.clock.advance(0.001);
    const result = await server.platform.collectGarbage();
    expect(result.sessionsExpired).toBe(1);
    expect(result.blobsDeleted).toBe(2);
    expect(result.bytesFreed).toBe([...byHash.values()].reduce((sum, b) => sum + b.length, 0));
    const after = storedBlobs(server.dataDir);
    for (const hash of hashes) expect(after.has(hash)).toBe(false);

    // And the platform knows it: the next prepare asks for the content again.
    const again = await prepareFiles(server.urls.api, p, files);
    expect(new Set(again.prepared.buckets.flat())).toEqual(new Set(hashes));
  });

  it("publishRevision: an expired upload session is not published, even in its token's last second", async () => {
    const p = await createTestProject(server.urls.api, "gc-expired-publish");
    // Prepare early in a second: the session ends mid-second, its token at the next whole second.
    server.clock.freeze();
    server.clock.advanceTo(Math.ceil(server.clock.now() / 1_000) * 1_000 + 200);
    const { prepared, byHash } = await prepareFiles(server.urls.api, p, { "/late.html": "<p>late</p>" });
    const completionJwt = await uploadAll(prepared, byHash);
    const sessionEnds = Date.parse(prepared.expiresAt);
    server.clock.advanceTo(sessionEnds);
    // The token is still good: only the session's own end refuses the publish.
    expect(jwtPayload(completionJwt).exp as number).toBeGreaterThan(server.clock.now() / 1_000);
    await expect(
      server.platform.publishRevision({
        projectSlug: p.slug,
        revisionId: prepared.revisionId,
        sessionId: jwtPayload(completionJwt).sub as string,
        completionJwt,
        hostnames: [`${p.slug}.localhost`],
        expiresAt: new Date(server.clock.now() + HOUR),
      }),
    ).rejects.toMatchObject({
      code: "INVALID_COMPLETION",
      message: expect.stringMatching(/upload session expired/),
    });
    expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/late.html")).status).toBe(404);
  });
});
