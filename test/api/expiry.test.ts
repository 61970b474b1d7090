import { describe, expect, it } from "vitest";
import { sweepExpired } from "../../src/core/operations/index.js";
import { createTestProject, deployFiles, identity, type TestProject } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { databaseFiles, queryDatabase, snapshotStore } from "../support/store-snapshot.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

const DAY = 86_400;
const EXPIRED = { error: { code: "PROJECT_EXPIRED", message: "project expired" } };

/** The project's row in the metadata store, or undefined once it is gone. */
function projectRow(server: TestServer, slug: string): unknown {
  return queryDatabase(
    databaseFiles(server.dataDir).metadata,
    "SELECT * FROM projects WHERE slug = ?",
    slug,
  )[0];
}

function prepareOn(server: TestServer, p: TestProject) {
  return api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
    token: p.token,
    body: { ...identity(p), manifest: {} },
  });
}

describe("project expiry", () => {
  it("expired project: 410 PROJECT_EXPIRED on prepare, deploy and domains, changing nothing; DELETE still works", async () => {
    const server = await startTestServer();
    try {
      const p = await createTestProject(server.urls.api, "expiring");
      await deployFiles(server.urls.api, p, { "/index.html": "soon gone" });
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).status).toBe(200);
      server.clock.advance(server.config.projectTtlSeconds + 1);
      const before = snapshotStore(server.dataDir);
      const routes = [
        ["POST", `/projects/${p.slug}/prepare`, { manifest: {} }],
        ["POST", `/projects/${p.slug}/deploy`, { deployId: "AAAAAAAAAAAAAAAAAAAAAA", completionJwt: "x" }],
        ["POST", `/projects/${p.slug}/domains`, { domain: "late.example.com" }],
        ["DELETE", `/projects/${p.slug}/domains`, {}],
      ] as const;
      for (const [method, path, extra] of routes) {
        const res = await api(server.urls.api, method, path, {
          token: p.token,
          body: { ...identity(p), ...extra },
        });
        expect(res.status, `${method} ${path}`).toBe(410);
        expect(res.body).toEqual(EXPIRED);
      }
      expect(snapshotStore(server.dataDir)).toEqual(before);
      // The edge stops serving an expired project.
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).status).toBe(404);
      const del = await api(server.urls.api, "DELETE", `/projects/${p.slug}`, {
        token: p.token,
        body: identity(p),
      });
      expect(del.status).toBe(200);
      expect(projectRow(server, p.slug)).toBeUndefined();
    } finally {
      await server.stop();
    }
  });

  it("project expiry: counted from the last completed deploy", async () => {
    const server = await startTestServer();
    const ttl = server.config.projectTtlSeconds;
    try {
      server.clock.freeze();
      const p = await createTestProject(server.urls.api, "renewed");
      expect(Date.parse(p.project.expiresAt)).toBe(server.clock.now() + ttl * 1000);
      server.clock.advance(ttl / 2);
      const { deployed } = await deployFiles(server.urls.api, p, { "/index.html": "renewed" });
      expect(Date.parse(deployed.project.expiresAt)).toBe(server.clock.now() + ttl * 1000);
      // Past the creation's TTL, within the deploy's: still live.
      server.clock.advance(ttl / 2 + 1);
      const live = await api(server.urls.api, "DELETE", `/projects/${p.slug}/domains`, {
        token: p.token,
        body: identity(p),
      });
      expect(live.status, JSON.stringify(live.body)).toBe(200);
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).body.toString()).toBe("renewed");
      // A TTL after the deploy: expired.
      server.clock.advance(ttl / 2);
      const expired = await prepareOn(server, p);
      expect(expired.status).toBe(410);
      expect(expired.body).toEqual(EXPIRED);
    } finally {
      await server.stop();
    }
  });

  it("sweep: an expired project is kept (410, deletable) until PROJECT_PURGE_GRACE_SECONDS have passed", async () => {
    const server = await startTestServer({ projectTtlSeconds: DAY, projectPurgeGraceSeconds: 7 * DAY });
    try {
      server.clock.freeze();
      const p = await createTestProject(server.urls.api, "in-grace");
      const kept = await createTestProject(server.urls.api, "in-grace-deleted");
      const { deployed } = await deployFiles(server.urls.api, p, { "/index.html": "in grace" });
      await deployFiles(server.urls.api, kept, { "/index.html": "in grace too" });
      const expiresAt = Date.parse(deployed.project.expiresAt);
      // Expired, and the grace period all but over: a sweep keeps both projects.
      server.clock.advanceTo(expiresAt + 7 * DAY * 1000 - 1000);
      const early = await sweepExpired(server.services);
      expect(early.projectsPurged).toBe(0);
      expect(projectRow(server, p.slug)).toBeDefined();
      const refused = await prepareOn(server, p);
      expect(refused.status).toBe(410);
      expect(refused.body).toEqual(EXPIRED);
      // Still the owner's to delete during the grace period.
      const deleted = await api(server.urls.api, "DELETE", `/projects/${kept.slug}`, {
        token: kept.token,
        body: identity(kept),
      });
      expect(deleted.status).toBe(200);
      expect(projectRow(server, kept.slug)).toBeUndefined();
      // Once the grace period is over, the next sweep purges it.
      server.clock.advance(2);
      const late = await sweepExpired(server.services);
      expect(late.projectsPurged).toBe(1);
      expect(projectRow(server, p.slug)).toBeUndefined();
    } finally {
      await server.stop();
    }
  });

  it("sweep: purges projects expired past the grace period and their tokens", async () => {
    const server = await startTestServer();
    try {
      const p = await createTestProject(server.urls.api, "purged");
      const live = await createTestProject(server.urls.api, "not-purged");
      await deployFiles(server.urls.api, p, { "/index.html": "purged" });
      const { projectTtlSeconds, projectPurgeGraceSeconds } = server.config;
      // A deploy renews the other project just before it expires: it is kept.
      server.clock.advance(projectTtlSeconds - 1);
      await deployFiles(server.urls.api, live, { "/index.html": "kept" });
      server.clock.advance(projectPurgeGraceSeconds + 2);
      const result = await sweepExpired(server.services);
      expect(result.projectsPurged).toBe(1);
      expect(projectRow(server, p.slug)).toBeUndefined();
      expect(projectRow(server, live.slug)).toBeDefined();
      const res = await api(server.urls.api, "DELETE", `/projects/${p.slug}`, {
        token: p.token,
        body: identity(p),
      });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("UNAUTHORIZED");
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});
