import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

describe("deploy with _redirects and _headers", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let p: TestProject;
  beforeAll(async () => {
    server = await startTestServer();
    p = await createTestProject(server.urls.api, "site-config");
    await deployFiles(server.urls.api, p, { "/index.html": "before" });
  });
  afterAll(async () => server.stop());

  /** Prepares and uploads everything, and returns what completes the deploy (not sent yet). */
  const upload = async (files: Record<string, string>) => {
    const { manifest, byHash } = await manifestOf(p.slug, files);
    const prepared = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });
    let completionJwt: string = prepared.body.uploadJwt;
    for (const bucket of prepared.body.buckets as string[][]) {
      const parts = bucket.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
      const uploaded = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, parts);
      if (uploaded.status === 201) completionJwt = uploaded.body.result.jwt;
    }
    return { deployId: prepared.body.deployId as string, completionJwt };
  };
  const deploy = (completion: { deployId: string; completionJwt: string }) =>
    api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
      token: p.token,
      body: { ...identity(p), ...completion },
    });
  const home = async () => (await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).body.toString();

  it("POST deploy: 422 INVALID_SITE_CONFIG naming _redirects and the line that does not parse, nothing changed", async () => {
    const completion = await upload({ "/index.html": "after", "/_redirects": "# ok\n/a /b\n/c /d 404\n" });
    const before = snapshotStore(server.dataDir);
    // What production serves before the refused request, whatever this file's other tests deployed.
    const served = await home();
    const refused = await deploy(completion);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toEqual({
      code: "INVALID_SITE_CONFIG",
      message: '_redirects:3: status "404" is not one of 301, 302, 303, 307, 308, 200',
    });
    expect(snapshotStore(server.dataDir)).toEqual(before);
    expect(await home()).toBe(served);
  });

  it("POST deploy: 422 INVALID_SITE_CONFIG naming every wrong line of _redirects, the first as before, nothing changed", async () => {
    const completion = await upload({ "/index.html": "after", "/_redirects": "/a /b 404\n/ok /fine\n/c\n" });
    const before = snapshotStore(server.dataDir);
    const refused = await deploy(completion);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toEqual({
      code: "INVALID_SITE_CONFIG",
      message:
        '_redirects:1: status "404" is not one of 301, 302, 303, 307, 308, 200; ' +
        '_redirects:3: expected "from to [status]", got 1 field',
    });
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("POST deploy: 422 INVALID_SITE_CONFIG naming _headers and its line, nothing changed", async () => {
    const completion = await upload({ "/index.html": "after", "/_headers": "/*\n  X-Frame-Options DENY\n" });
    const before = snapshotStore(server.dataDir);
    // What production serves before the refused request, whatever this file's other tests deployed.
    const served = await home();
    const refused = await deploy(completion);
    expect([refused.status, refused.body.error.code]).toEqual([422, "INVALID_SITE_CONFIG"]);
    expect(refused.body.error.message).toBe(
      '_headers:2: expected "Name: value" or "! Name", got "X-Frame-Options DENY"',
    );
    expect(snapshotStore(server.dataDir)).toEqual(before);
    expect(await home()).toBe(served);
  });

  it("POST deploy: a rules file that is not UTF-8 is refused with 422 INVALID_SITE_CONFIG", async () => {
    const { manifest, byHash } = await manifestOf(p.slug, { "/_redirects": Buffer.from([0x2f, 0xff, 0xfe]) });
    const prepared = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });
    const parts = prepared.body.buckets.flat().map((hash: string) => ({ hash, bytes: byHash.get(hash)! }));
    const uploaded = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, parts);
    const refused = await deploy({
      deployId: prepared.body.deployId,
      completionJwt: uploaded.body.result.jwt,
    });
    expect(refused.body.error).toEqual({
      code: "INVALID_SITE_CONFIG",
      message: "_redirects: not UTF-8 text",
    });
  });

  it("POST deploy: the site's _redirects and _headers apply on the edge from the next request; neither is served", async () => {
    await deployFiles(server.urls.api, p, {
      "/index.html": "home",
      "/guide.html": "guide",
      "/_redirects": "/start /guide 302\n",
      "/_headers": "/*\n  X-Frame-Options: DENY\n",
    });
    const host = `${p.slug}.localhost`;
    const moved = await edgeGet(server.urls.edge, host, "/start?x=1");
    expect([moved.status, moved.headers.location]).toEqual([302, "/guide?x=1"]);
    expect((await edgeGet(server.urls.edge, host, "/guide")).headers["x-frame-options"]).toBe("DENY");
    expect((await edgeGet(server.urls.edge, host, "/_redirects")).status).toBe(404);
    expect((await edgeGet(server.urls.edge, host, "/_headers")).status).toBe(404);
  });

  it("edge Last-Modified: moves forward when an older revision is promoted, so a browser's If-Modified-Since gets the rollback (200), not a 304", async () => {
    const q = await createTestProject(server.urls.api, "last-modified");
    const host = `${q.slug}.localhost`;
    const one = await deployFiles(server.urls.api, q, { "/index.html": "version one" });
    const oneModified = (await edgeGet(server.urls.edge, host, "/")).headers["last-modified"];
    server.clock.advance(60);
    await deployFiles(server.urls.api, q, { "/index.html": "version two" });
    const two = await edgeGet(server.urls.edge, host, "/");
    const twoModified = String(two.headers["last-modified"]);
    // Whole seconds: the real time under the test clock may cross one more second boundary.
    expect(Date.parse(twoModified) - Date.parse(String(oneModified))).toBeGreaterThanOrEqual(60_000);
    expect((await edgeGet(server.urls.edge, host, "/", { "if-modified-since": twoModified })).status).toBe(
      304,
    );
    server.clock.advance(60);
    const promoted = await api(server.urls.api, "POST", `/projects/${q.slug}/promote`, {
      token: q.token,
      body: { ...identity(q), revisionId: one.deployed.revisionId },
    });
    expect(promoted.status).toBe(200);
    const rolledBack = await edgeGet(server.urls.edge, host, "/", { "if-modified-since": twoModified });
    expect([rolledBack.status, rolledBack.body.toString()]).toEqual([200, "version one"]);
    expect(
      Date.parse(String(rolledBack.headers["last-modified"])) - Date.parse(twoModified),
    ).toBeGreaterThanOrEqual(60_000);
    // The revision's own host keeps the revision's publish time.
    const pinned = await edgeGet(server.urls.edge, new URL(one.deployed.revisionUrl).host, "/");
    expect(pinned.headers["last-modified"]).toBe(oneModified);
  });
});
