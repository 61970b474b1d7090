import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, hex64, identity, type TestProject } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

/** Every project route with a body that is valid apart from the credentials under test. */
const ROUTES = (p: TestProject) =>
  [
    ["POST", `/projects/${p.slug}/prepare`, { manifest: {} }],
    ["POST", `/projects/${p.slug}/deploy`, { deployId: "AAAAAAAAAAAAAAAAAAAAAA", completionJwt: "x" }],
    ["POST", `/projects/${p.slug}/domains`, { domain: "www.example.com" }],
    ["DELETE", `/projects/${p.slug}/domains`, {}],
    ["DELETE", `/projects/${p.slug}`, {}],
  ] as const;

describe("authorization of project routes", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let mine: TestProject;
  let theirs: TestProject;
  beforeAll(async () => {
    server = await startTestServer();
    mine = await createTestProject(server.urls.api, "mine");
    theirs = await createTestProject(server.urls.api, "theirs");
  });
  afterAll(async () => server.stop());

  const call = (
    method: string,
    path: string,
    token: string | undefined,
    body: unknown,
    raw?: Record<string, string>,
  ) => api(server.urls.api, method, path, raw ? { body, headers: raw } : { body, token });

  it("project routes: 401 UNAUTHORIZED when the bearer token is missing, malformed or unknown", async () => {
    const before = snapshotStore(server.dataDir);
    for (const [method, path, extra] of ROUTES(mine)) {
      const body = { ...identity(mine), ...extra };
      for (const res of [
        await call(method, path, undefined, body),
        await call(method, path, undefined, body, { authorization: "Basic abc" }),
        await call(method, path, "sdp_unknown", body),
      ]) {
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.body.error.code).toBe("UNAUTHORIZED");
      }
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("project routes: 404 PROJECT_NOT_FOUND for a known token on a missing project", async () => {
    const before = snapshotStore(server.dataDir);
    const ghost = { ...mine, slug: "no-such-project-xyz" };
    for (const [method, path, extra] of ROUTES(ghost)) {
      const res = await call(method, path, mine.token, { ...identity(mine), ...extra });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe("PROJECT_NOT_FOUND");
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("project routes: 403 OWNERSHIP_MISMATCH for another project's token, hash or fingerprint", async () => {
    const before = snapshotStore(server.dataDir);
    for (const [method, path, extra] of ROUTES(mine)) {
      const attempts = [
        await call(method, path, theirs.token, { ...identity(mine), ...extra }),
        await call(method, path, mine.token, { ...identity(mine), projectHash: hex64("other"), ...extra }),
        await call(method, path, mine.token, {
          ...identity(mine),
          anonFingerprint: hex64("other"),
          ...extra,
        }),
      ];
      for (const res of attempts) {
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.error.code).toBe("OWNERSHIP_MISMATCH");
      }
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("project routes: the Bearer scheme is case-insensitive (RFC 9110), the token is not", async () => {
    const path = `/projects/${mine.slug}/domains`;
    const lower = await call("DELETE", path, undefined, identity(mine), {
      authorization: `bearer ${mine.token}`,
    });
    expect(lower.status).toBe(200);
    const changed = await call("DELETE", path, undefined, identity(mine), {
      authorization: `Bearer ${mine.token.toUpperCase()}`,
    });
    expect(changed.status).toBe(401);
    expect(changed.body.error.code).toBe("UNAUTHORIZED");
  });

  it("project routes: identity hashes are accepted in either case", async () => {
    const res = await call("DELETE", `/projects/${mine.slug}/domains`, mine.token, {
      projectHash: mine.projectHash.toUpperCase(),
      anonFingerprint: mine.anonFingerprint.toUpperCase(),
    });
    expect(res.status).toBe(200);
  });

  it("project routes: a missing or unknown token is answered 401 from the headers, whatever the body", async () => {
    const before = snapshotStore(server.dataDir);
    // Contract §5: the body is read only for a known token, so a malformed one cannot come first.
    for (const [method, path] of ROUTES(mine)) {
      for (const token of [undefined, "sdp_unknown"]) {
        const res = await call(method, path, token, { projectHash: "nope", anonFingerprint: "nope" });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.body.error.code).toBe("UNAUTHORIZED");
      }
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("project routes: body formats are checked before the project and ownership (400 before 404 and 403)", async () => {
    const before = snapshotStore(server.dataDir);
    const ghost = { ...mine, slug: "no-such-project-xyz" };
    for (const [method, path] of [...ROUTES(mine), ...ROUTES(ghost)]) {
      // Another project's token: known, so the body is read, and judged before the 403 or 404.
      const res = await call(method, path, theirs.token, {
        projectHash: "nope",
        anonFingerprint: hex64("x"),
      });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.error.code).toBe("INVALID_PROJECT_HASH");
      const fp = await call(method, path, theirs.token, { projectHash: hex64("x"), anonFingerprint: "nope" });
      expect(fp.status, `${method} ${path}`).toBe(400);
      expect(fp.body.error.code).toBe("INVALID_FINGERPRINT");
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("project routes: a malformed manifest or hostname is judged before ownership (400 before 403)", async () => {
    const before = snapshotStore(server.dataDir);
    const manifest = await call("POST", `/projects/${mine.slug}/prepare`, theirs.token, {
      ...identity(mine),
      manifest: { "/elsewhere/a.txt": { hash: "0".repeat(32), size: 1 } },
    });
    expect(manifest.status).toBe(400);
    expect(manifest.body.error.code).toBe("INVALID_MANIFEST");
    const domain = await call("POST", `/projects/${mine.slug}/domains`, theirs.token, {
      ...identity(mine),
      domain: "not a hostname",
    });
    expect(domain.status).toBe(400);
    expect(domain.body.error.code).toBe("INVALID_DOMAIN");
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("project routes: a body is required with Content-Type application/json, DELETE included", async () => {
    const before = snapshotStore(server.dataDir);
    for (const [method, path] of ROUTES(mine)) {
      const res = await api(server.urls.api, method, path, { token: mine.token, raw: "{}" });
      expect(res.status, `${method} ${path}`).toBe(415);
      expect(res.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
      const empty = await api(server.urls.api, method, path, {
        token: mine.token,
        headers: { "content-type": "application/json" },
      });
      expect(empty.status).toBe(400);
      expect(empty.body.error.code).toBe("INVALID_JSON");
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("project routes: a missing field gives INVALID_REQUEST naming it", async () => {
    const before = snapshotStore(server.dataDir);
    const res = await call("POST", `/projects/${mine.slug}/domains`, mine.token, identity(mine));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_REQUEST");
    expect(res.body.error.message).toContain("domain");
    const deploy = await call("POST", `/projects/${mine.slug}/deploy`, mine.token, {
      ...identity(mine),
      deployId: 5,
    });
    expect(deploy.status).toBe(400);
    expect(deploy.body.error.code).toBe("INVALID_REQUEST");
    expect(deploy.body.error.message).toContain("deployId");
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("failed requests: change nothing (the other project still works and keeps its data)", async () => {
    const before = snapshotStore(server.dataDir);
    const res = await call("DELETE", `/projects/${theirs.slug}`, mine.token, identity(theirs));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("OWNERSHIP_MISMATCH");
    expect(snapshotStore(server.dataDir)).toEqual(before);
    const ok = await call("DELETE", `/projects/${theirs.slug}/domains`, theirs.token, identity(theirs));
    expect(ok.status).toBe(200);
    expect(ok.body.project.projectSlug).toBe(theirs.slug);
  });
});
