import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepExpired } from "../../src/core/operations/index.js";
import { pruneRevisions } from "../../src/core/operations/retention.js";
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

const DAY = 86_400;

describe("revisions: state, promote, previews", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  const state = (p: TestProject, overrides: Record<string, unknown> = {}, token = p.token) =>
    api(server.urls.api, "POST", `/projects/${p.slug}/state`, {
      token,
      body: { ...identity(p), ...overrides },
    });
  const promote = (p: TestProject, revisionId: unknown, token = p.token) =>
    api(server.urls.api, "POST", `/projects/${p.slug}/promote`, {
      token,
      body: { ...identity(p), revisionId },
    });
  const page = async (p: TestProject, host = `${p.slug}.localhost`) => {
    const res = await edgeGet(server.urls.edge, host, "/");
    return { status: res.status, body: res.body.toString() };
  };

  /** Prepares, uploads and completes a deploy with `preview` in the deploy body. */
  async function deployPreview(p: TestProject, files: Record<string, string>) {
    const { manifest, byHash } = await manifestOf(p.slug, files);
    const prepared = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });
    let jwt: string = prepared.body.uploadJwt;
    for (const bucket of prepared.body.buckets as string[][]) {
      const parts = bucket.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
      const uploaded = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, parts);
      if (uploaded.status === 201) jwt = uploaded.body.result.jwt;
    }
    return api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
      token: p.token,
      body: { ...identity(p), deployId: prepared.body.deployId, completionJwt: jwt, preview: true },
    });
  }

  it("POST state: 200 with the project and its revisions newest first: id, created, files, bytes, production", async () => {
    const p = await createTestProject(server.urls.api, "state-list");
    const empty = await state(p);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ project: p.project, revisions: [] });
    const one = await deployFiles(server.urls.api, p, { "/index.html": "one", "/a.css": "css" });
    server.clock.advance(60);
    const two = await deployFiles(server.urls.api, p, { "/index.html": "two!" });
    const res = await state(p);
    expect(res.status).toBe(200);
    expect(res.body.project.revisionId).toBe(two.deployed.revisionId);
    expect(res.body.revisions).toEqual([
      {
        revisionId: two.deployed.revisionId,
        createdAt: expect.any(String),
        files: 1,
        bytes: 4,
        production: true,
        preview: false,
        revisionUrl: two.deployed.revisionUrl,
        message: null,
      },
      {
        revisionId: one.deployed.revisionId,
        createdAt: expect.any(String),
        files: 2,
        bytes: 6,
        production: false,
        preview: false,
        revisionUrl: one.deployed.revisionUrl,
        message: null,
      },
    ]);
    expect(Date.parse(res.body.revisions[0].createdAt)).toBeGreaterThan(
      Date.parse(res.body.revisions[1].createdAt),
    );
  });

  it("POST state: the credentials of every project route (401, 403, 404), 415 without JSON", async () => {
    const p = await createTestProject(server.urls.api, "state-auth");
    const other = await createTestProject(server.urls.api, "state-auth-other");
    expect((await state(p, {}, "sdp_unknown")).status).toBe(401);
    const foreign = await state(p, {}, other.token);
    expect([foreign.status, foreign.body.error.code]).toEqual([403, "OWNERSHIP_MISMATCH"]);
    const wrongHash = await state(p, { projectHash: other.projectHash });
    expect([wrongHash.status, wrongHash.body.error.code]).toEqual([403, "OWNERSHIP_MISMATCH"]);
    const malformed = await state(p, { anonFingerprint: "nope" });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, "INVALID_FINGERPRINT"]);
    const gone = await api(server.urls.api, "POST", `/projects/nobody-here-00000/state`, {
      token: p.token,
      body: identity(p),
    });
    expect([gone.status, gone.body.error.code]).toEqual([404, "PROJECT_NOT_FOUND"]);
    const raw = await api(server.urls.api, "POST", `/projects/${p.slug}/state`, {
      token: p.token,
      raw: JSON.stringify(identity(p)),
    });
    expect([raw.status, raw.body.error.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
  });

  it("POST promote: rollback to an older revision, the edge serves it on the next request; the same promote again answers the same", async () => {
    const p = await createTestProject(server.urls.api, "promote");
    const one = await deployFiles(server.urls.api, p, { "/index.html": "version one" });
    await deployFiles(server.urls.api, p, { "/index.html": "version two" });
    expect((await page(p)).body).toBe("version two");
    const res = await promote(p, one.deployed.revisionId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      revisionId: one.deployed.revisionId,
      productionUrl: one.deployed.productionUrl,
      revisionUrl: one.deployed.revisionUrl,
      project: { ...res.body.project, revisionId: one.deployed.revisionId },
    });
    expect(await page(p)).toEqual({ status: 200, body: "version one" });
    const again = await promote(p, one.deployed.revisionId);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    const listed = await state(p);
    expect(listed.body.revisions.map((r: any) => r.production)).toEqual([false, true]);
  });

  it("POST promote: 404 REVISION_NOT_FOUND for a revision the project never had (another project's too), nothing changed", async () => {
    const p = await createTestProject(server.urls.api, "promote-unknown");
    const other = await createTestProject(server.urls.api, "promote-unknown-other");
    await deployFiles(server.urls.api, p, { "/index.html": "mine" });
    const theirs = await deployFiles(server.urls.api, other, { "/index.html": "theirs" });
    const before = snapshotStore(server.dataDir);
    for (const revisionId of ["zzzzzzzzzz", theirs.deployed.revisionId]) {
      const res = await promote(p, revisionId);
      expect([res.status, res.body.error.code]).toEqual([404, "REVISION_NOT_FOUND"]);
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
    expect((await page(p)).body).toBe("mine");
  });

  it("POST promote: 400 INVALID_REQUEST naming revisionId when it is malformed or missing", async () => {
    const p = await createTestProject(server.urls.api, "promote-malformed");
    for (const revisionId of ["SHORT", "../../etc", 12, undefined]) {
      const res = await promote(p, revisionId);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
      expect(res.body.error.message).toContain("revisionId");
    }
  });

  it("POST promote: 410 PROJECT_EXPIRED on an expired project, while state still answers", async () => {
    const p = await createTestProject(server.urls.api, "promote-expired");
    const one = await deployFiles(server.urls.api, p, { "/index.html": "one" });
    server.clock.advance(server.config.projectTtlSeconds + 1);
    const res = await promote(p, one.deployed.revisionId);
    expect([res.status, res.body.error]).toEqual([
      410,
      { code: "PROJECT_EXPIRED", message: "project expired" },
    ]);
    expect((await state(p)).status).toBe(200);
  });

  it("POST deploy: preview true publishes on the revision URL only; production and the project's revision stay", async () => {
    const p = await createTestProject(server.urls.api, "preview");
    const live = await deployFiles(server.urls.api, p, { "/index.html": "live" });
    const res = await deployPreview(p, { "/index.html": "draft" });
    expect(res.status).toBe(200);
    expect(res.body.project.revisionId).toBe(live.deployed.revisionId);
    expect(res.body.revisionId).not.toBe(live.deployed.revisionId);
    expect(await page(p)).toEqual({ status: 200, body: "live" });
    const revisionHost = new URL(res.body.revisionUrl).hostname;
    expect(await page(p, revisionHost)).toEqual({ status: 200, body: "draft" });
    const listed = await state(p);
    expect(listed.body.revisions[0]).toMatchObject({
      revisionId: res.body.revisionId,
      preview: true,
      production: false,
    });
    // Promoting the preview puts it live.
    expect((await promote(p, res.body.revisionId)).status).toBe(200);
    expect(await page(p)).toEqual({ status: 200, body: "draft" });
  });

  it("POST deploy: 400 INVALID_REQUEST naming preview when it is not a boolean", async () => {
    const p = await createTestProject(server.urls.api, "preview-bad");
    const res = await api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
      token: p.token,
      body: { ...identity(p), deployId: "x".repeat(22), completionJwt: "jwt", preview: "yes" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("preview");
  });

  it("GET /openapi.json: documents state, promote and the deploy body's preview", async () => {
    const doc = (await api(server.urls.api, "GET", "/openapi.json")).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/projects/{projectSlug}/state", "/projects/{projectSlug}/promote"]),
    );
    const deployBody =
      doc.paths["/projects/{projectSlug}/deploy"].post.requestBody.content["application/json"].schema;
    expect(deployBody.properties.preview.type).toBe("boolean");
  });
});

describe("revisions: retention", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    // A project that lives a year, so revisions can age past REVISION_MIN_AGE_DAYS while it lives.
    server = await startTestServer({
      revisionsKept: 2,
      revisionMinAgeDays: 30,
      projectTtlSeconds: 365 * DAY,
    });
  });
  afterAll(async () => server.stop());

  it("sweep: beyond REVISIONS_KEPT and older than REVISION_MIN_AGE_DAYS a revision is pruned: its URL 404, promote 404 REVISION_NOT_FOUND, its content reclaimed", async () => {
    const p = await createTestProject(server.urls.api, "retention");
    const first = await deployFiles(server.urls.api, p, {
      "/index.html": "first",
      "/only-first.txt": "gone soon",
    });
    await deployFiles(server.urls.api, p, { "/index.html": "second" });
    server.clock.advance(31 * DAY);
    const third = await deployFiles(server.urls.api, p, { "/index.html": "third" });
    const firstHost = new URL(first.deployed.revisionUrl).hostname;
    expect((await edgeGet(server.urls.edge, firstHost, "/only-first.txt")).status).toBe(200);

    const swept = await sweepExpired(server.services);
    expect(swept.revisionsPruned).toBe(1);
    expect(swept.bytesFreed).toBeGreaterThanOrEqual("gone soon".length + "first".length);
    expect((await edgeGet(server.urls.edge, firstHost, "/only-first.txt")).status).toBe(404);
    const res = await api(server.urls.api, "POST", `/projects/${p.slug}/promote`, {
      token: p.token,
      body: { ...identity(p), revisionId: first.deployed.revisionId },
    });
    expect([res.status, res.body.error.code]).toEqual([404, "REVISION_NOT_FOUND"]);
    const listed = await api(server.urls.api, "POST", `/projects/${p.slug}/state`, {
      token: p.token,
      body: identity(p),
    });
    expect(listed.body.revisions).toHaveLength(2);
    expect(listed.body.revisions[0].revisionId).toBe(third.deployed.revisionId);
    // The project no longer holds the content: a deploy that wants it again is asked for it.
    const { manifest } = await manifestOf(p.slug, { "/only-first.txt": "gone soon" });
    const prepared = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });
    expect(prepared.body.buckets.flat()).toHaveLength(1);
  });

  it("sweep: a revision promoted between the sweep's listing and the project's lock is kept, the others listed go", async () => {
    const p = await createTestProject(server.urls.api, "retention-race");
    const ids: string[] = [];
    for (const text of ["a", "b", "c", "d"]) {
      ids.push((await deployFiles(server.urls.api, p, { "/index.html": text })).deployed.revisionId);
    }
    server.clock.advance(31 * DAY);
    const { store } = server.services;
    let listed: string[] = [];
    // The barrier: once the sweep has its list (a and b), a rollback to a runs to its end before
    // the sweep takes the project's lock.
    const racing = Object.create(store, {
      listPrunableRevisions: {
        value: async (...args: Parameters<typeof store.listPrunableRevisions>) => {
          const batch = await store.listPrunableRevisions(...args);
          listed = batch.filter((r) => r.projectSlug === p.slug).map((r) => r.revisionId);
          if (listed.length > 0) {
            const res = await api(server.urls.api, "POST", `/projects/${p.slug}/promote`, {
              token: p.token,
              body: { ...identity(p), revisionId: ids[0] },
            });
            expect(res.status).toBe(200);
          }
          return batch;
        },
      },
    }) as typeof store;
    expect(await pruneRevisions({ ...server.services, store: racing })).toBe(1);
    expect(listed).toEqual([ids[0], ids[1]]);
    const state = await api(server.urls.api, "POST", `/projects/${p.slug}/state`, {
      token: p.token,
      body: identity(p),
    });
    expect(state.body.revisions.map((r: any) => r.revisionId)).toEqual([ids[3], ids[2], ids[0]]);
    expect(state.body.project.revisionId).toBe(ids[0]);
    expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).body.toString()).toBe("a");
    const kept = await edgeGet(server.urls.edge, `${ids[0]}--${p.slug}.localhost`, "/");
    expect([kept.status, kept.body.toString()]).toEqual([200, "a"]);
    expect((await edgeGet(server.urls.edge, `${ids[1]}--${p.slug}.localhost`, "/")).status).toBe(404);
  });

  it("sweep: revisions younger than REVISION_MIN_AGE_DAYS, and the production one, are kept beyond REVISIONS_KEPT", async () => {
    const p = await createTestProject(server.urls.api, "retention-young");
    const ids: string[] = [];
    for (const text of ["a", "b", "c", "d"]) {
      ids.push((await deployFiles(server.urls.api, p, { "/index.html": text })).deployed.revisionId);
    }
    // A day short of REVISION_MIN_AGE_DAYS: still young, all kept.
    server.clock.advance(29 * DAY);
    await sweepExpired(server.services);
    const kept = async () =>
      (
        await api(server.urls.api, "POST", `/projects/${p.slug}/state`, { token: p.token, body: identity(p) })
      ).body.revisions.map((r: any) => r.revisionId);
    expect(await kept()).toEqual([...ids].reverse());
    // Roll back to the oldest, then let them all age: the production one stays with the last two.
    await api(server.urls.api, "POST", `/projects/${p.slug}/promote`, {
      token: p.token,
      body: { ...identity(p), revisionId: ids[0] },
    });
    server.clock.advance(2 * DAY);
    await sweepExpired(server.services);
    expect(await kept()).toEqual([ids[3], ids[2], ids[0]]);
    expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).body.toString()).toBe("a");
  });
});
