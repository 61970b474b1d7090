import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, hex64, identity } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

describe("POST /projects", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ createLimitPerAddress: 1000, createLimitPerFingerprint: 3 });
  });
  afterAll(async () => server.stop());

  it("POST /projects: 201 with public metadata and a token returned once", async () => {
    const res = await api(server.urls.api, "POST", "/projects", {
      body: { projectHash: hex64("a").toUpperCase(), anonFingerprint: hex64("b") },
    });
    expect(res.status).toBe(201);
    const { project, apiToken } = res.body;
    expect(apiToken).toMatch(/^sdp_[A-Za-z0-9_-]{43}$/);
    expect(project.projectSlug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(project.projectSlug.length).toBeGreaterThanOrEqual(3);
    expect(project.projectSlug.length).toBeLessThanOrEqual(40);
    expect(project).toEqual({
      projectSlug: project.projectSlug,
      hostname: `${project.projectSlug}.localhost`,
      generatedHostname: `${project.projectSlug}.localhost`,
      customHostname: null,
      customHostnameStatus: null,
      productionUrl: `http://${project.projectSlug}.localhost:${new URL(server.urls.edge).port}/`,
      revisionId: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      expiresAt: expect.stringMatching(/Z$/),
    });
    expect(Date.parse(project.expiresAt) - Date.parse(project.createdAt)).toBe(2_592_000_000);
  });

  it("POST /projects: the store keeps only the SHA-256 of the token, and identity lowercased", async () => {
    // Sent in capitals: both identity fields are kept in lower case.
    const sent = {
      projectHash: hex64("stored-hash").toUpperCase(),
      anonFingerprint: hex64("stored-fp").toUpperCase(),
    };
    const created = await api(server.urls.api, "POST", "/projects", { body: sent });
    expect(created.status).toBe(201);
    const slug = created.body.project.projectSlug as string;
    const token = created.body.apiToken as string;
    const db = new Database(join(server.dataDir, "metadata.sqlite"), { readonly: true });
    const row = db.prepare("SELECT * FROM projects WHERE slug = ?").get(slug) as Record<string, string>;
    db.close();
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.project_hash).toBe(hex64("stored-hash"));
    expect(row.anon_fingerprint).toBe(hex64("stored-fp"));
  });

  it("POST /projects: 400 INVALID_PROJECT_HASH / INVALID_FINGERPRINT / INVALID_JSON / 415", async () => {
    const cases: [unknown, number, string][] = [
      [{ projectHash: "abc", anonFingerprint: hex64("x") }, 400, "INVALID_PROJECT_HASH"],
      [{ anonFingerprint: hex64("x") }, 400, "INVALID_REQUEST"],
      [{ projectHash: hex64("x"), anonFingerprint: "z".repeat(64) }, 400, "INVALID_FINGERPRINT"],
      [{ projectHash: 42, anonFingerprint: hex64("x") }, 400, "INVALID_PROJECT_HASH"],
      [[1, 2], 400, "INVALID_JSON"],
      ["text", 400, "INVALID_JSON"],
      [null, 400, "INVALID_JSON"],
    ];
    for (const [body, status, code] of cases) {
      const res = await api(server.urls.api, "POST", "/projects", { body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.code).toBe(code);
      expect(typeof res.body.error.message).toBe("string");
    }
    const broken = await api(server.urls.api, "POST", "/projects", {
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe("INVALID_JSON");
    const wrongType = await api(server.urls.api, "POST", "/projects", {
      raw: JSON.stringify({ projectHash: hex64("a"), anonFingerprint: hex64("b") }),
      headers: { "content-type": "text/plain" },
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("POST /projects: 429 RATE_LIMITED with Retry-After per anonFingerprint, nothing created; the next window creates again", async () => {
    const body = { projectHash: hex64("rl"), anonFingerprint: hex64("rate-limited") };
    for (let i = 0; i < 3; i++)
      expect((await api(server.urls.api, "POST", "/projects", { body })).status).toBe(201);
    const before = snapshotStore(server.dataDir);
    const res = await api(server.urls.api, "POST", "/projects", { body });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("RATE_LIMITED");
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(server.config.createLimitWindowSeconds);
    expect(snapshotStore(server.dataDir)).toEqual(before);
    const other = await api(server.urls.api, "POST", "/projects", {
      body: { ...body, anonFingerprint: hex64("someone-else") },
    });
    expect(other.status).toBe(201);
    server.clock.advance(retryAfter);
    expect((await api(server.urls.api, "POST", "/projects", { body })).status).toBe(201);
  });

  it("POST /projects: the per-fingerprint limit counts a fingerprint in any letter case as one identity", async () => {
    const fingerprint = hex64("one-install");
    const spellings = [
      fingerprint,
      fingerprint.toUpperCase(),
      fingerprint.replace(/[a-f]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c)),
    ];
    for (const [i, anonFingerprint] of spellings.entries()) {
      const created = await api(server.urls.api, "POST", "/projects", {
        body: { projectHash: hex64(`case-${i}`), anonFingerprint },
      });
      expect(created.status, anonFingerprint).toBe(201);
    }
    const before = snapshotStore(server.dataDir);
    // A fourth spelling is the same install: past its limit of 3, whatever the case.
    const res = await api(server.urls.api, "POST", "/projects", {
      body: {
        projectHash: hex64("case-3"),
        anonFingerprint: fingerprint.replace(/^[0-9]*[a-f]/, (m) => m.toUpperCase()),
      },
    });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("RATE_LIMITED");
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("DELETE /projects/:slug: 200 { projectSlug, deleted: true }, then the token is unknown", async () => {
    const p = await createTestProject(server.urls.api, "to-delete");
    const res = await api(server.urls.api, "DELETE", `/projects/${p.slug}`, {
      token: p.token,
      body: identity(p),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ projectSlug: p.slug, deleted: true });
    const again = await api(server.urls.api, "DELETE", `/projects/${p.slug}`, {
      token: p.token,
      body: identity(p),
    });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe("UNAUTHORIZED");
  });
});

describe("POST /projects rate limit per address", () => {
  it("POST /projects: 429 once an address exceeds its limit", async () => {
    const server = await startTestServer({ createLimitPerAddress: 2 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const body = { projectHash: hex64(`a${i}`), anonFingerprint: hex64(`f${i}`) };
        statuses.push((await api(server.urls.api, "POST", "/projects", { body })).status);
      }
      expect(statuses).toEqual([201, 201, 429]);
    } finally {
      await server.stop();
    }
  });
});
