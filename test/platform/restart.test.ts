import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, deployFiles, type TestProject } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer, tempDir } from "../support/server.js";
import { completeDeploy, prepareFiles } from "../support/upload-flow.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

describe("restart", () => {
  const dir = tempDir("deploy-restart-");
  const image = randomBytes(70_001);
  const files = { "/index.html": "<h1>before the restart</h1>", "/img/logo.png": image };
  // Each test has its own project, made before the restart: p is only read, q finishes its
  // pending upload and r is redeployed, so the tests pass in any order.
  let p: TestProject;
  let q: TestProject;
  let r: TestProject;
  let before: { prepared: any; deployed: any };
  let beforeR: { prepared: any; deployed: any };
  let pending: Awaited<ReturnType<typeof prepareFiles>>;
  let server: TestServer;

  beforeAll(async () => {
    const first = await startTestServer({ dataDir: dir.path });
    try {
      p = await createTestProject(first.urls.api, "restart");
      before = await deployFiles(first.urls.api, p, files);
      q = await createTestProject(first.urls.api, "restart-pending");
      // An upload session opened before the restart, finished after it.
      pending = await prepareFiles(first.urls.api, q, { "/after.txt": "uploaded after the restart" });
      expect(pending.prepared.buckets.flat()).toHaveLength(1);
      r = await createTestProject(first.urls.api, "restart-redeploy");
      beforeR = await deployFiles(first.urls.api, r, files);
    } finally {
      await first.stop();
    }
    server = await startTestServer({ dataDir: dir.path });
  });
  afterAll(async () => {
    await server?.stop();
    dir.cleanup();
  });

  it("restart: the published site still serves byte for byte", async () => {
    const host = `${p.slug}.localhost`;
    const logo = await edgeGet(server.urls.edge, host, "/img/logo.png");
    expect(logo.status).toBe(200);
    expect(logo.headers["content-type"]).toBe("image/png");
    expect(logo.body.equals(image)).toBe(true);
    const home = await edgeGet(server.urls.edge, host, "/");
    expect(home.body.toString()).toBe("<h1>before the restart</h1>");
    const revision = await edgeGet(
      server.urls.edge,
      new URL(before.deployed.revisionUrl).hostname,
      "/img/logo.png",
    );
    expect(revision.status).toBe(200);
    expect(revision.body.equals(image)).toBe(true);
  });

  it("restart: the api token still works and the account id is the same", async () => {
    const { prepared } = await prepareFiles(server.urls.api, p, files);
    expect(prepared.accountId).toBe(before.prepared.accountId);
    expect(prepared.accountId).toMatch(/^[0-9a-f]{32}$/);
    expect(prepared.urls.upload).toContain(`/accounts/${before.prepared.accountId}/`);
    // Everything is still held: nothing to upload.
    expect(prepared.buckets).toEqual([]);
  });

  it("restart: an upload session opened before the restart can be finished after it", async () => {
    const hash = pending.prepared.buckets[0][0];
    // The upload URL of the old listener is gone; the same path on the new one takes the old token.
    const url = new URL(pending.prepared.urls.upload);
    const uploadUrl = `${server.urls.upload}${url.pathname}${url.search}`;
    const done = await uploadBucket(uploadUrl, pending.prepared.uploadJwt, [
      { hash, bytes: pending.byHash.get(hash)! },
    ]);
    expect(done.status).toBe(201);
    const deployed = await completeDeploy(
      server.urls.api,
      q,
      pending.prepared.deployId,
      done.body.result.jwt,
    );
    expect(deployed.status).toBe(200);
    const after = await edgeGet(server.urls.edge, `${q.slug}.localhost`, "/after.txt");
    expect(after.body.toString()).toBe("uploaded after the restart");
  });

  it("restart: a redeploy works and replaces the site", async () => {
    const { deployed } = await deployFiles(server.urls.api, r, {
      "/index.html": "<h1>after the restart</h1>",
      "/img/logo.png": image,
    });
    expect(deployed.revisionId).not.toBe(beforeR.deployed.revisionId);
    const home = await edgeGet(server.urls.edge, `${r.slug}.localhost`, "/");
    expect(home.body.toString()).toBe("<h1>after the restart</h1>");
    // The old revision host keeps serving its revision.
    const old = await edgeGet(server.urls.edge, new URL(beforeR.deployed.revisionUrl).hostname, "/");
    expect(old.body.toString()).toBe("<h1>before the restart</h1>");
  });
});
