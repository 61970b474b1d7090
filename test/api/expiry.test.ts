import { describe, expect, it } from "vitest";
import { sweepExpired } from "../../src/core/operations/index.js";
import { createTestProject, deployFiles, identity } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("project expiry", () => {
  it("expired project: 410 PROJECT_EXPIRED on prepare, deploy and domains; DELETE still works", async () => {
    const server = await startTestServer({ projectTtlSeconds: 1 });
    try {
      const p = await createTestProject(server.urls.api, "expiring");
      await deployFiles(server.urls.api, p, { "/index.html": "soon gone" });
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).status).toBe(200);
      await sleep(1100);
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
        expect(res.body).toEqual({ error: { code: "PROJECT_EXPIRED", message: "project expired" } });
      }
      // The edge stops serving an expired project.
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).status).toBe(404);
      const del = await api(server.urls.api, "DELETE", `/projects/${p.slug}`, {
        token: p.token,
        body: identity(p),
      });
      expect(del.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("project expiry: counted from the last completed deploy", async () => {
    const server = await startTestServer({ projectTtlSeconds: 2 });
    try {
      const p = await createTestProject(server.urls.api, "renewed");
      await sleep(1200);
      const { deployed } = await deployFiles(server.urls.api, p, { "/index.html": "renewed" });
      expect(Date.parse(deployed.project.expiresAt)).toBeGreaterThan(Date.parse(p.project.expiresAt) + 1000);
      await sleep(1000);
      const res = await api(server.urls.api, "DELETE", `/projects/${p.slug}/domains`, {
        token: p.token,
        body: identity(p),
      });
      expect(res.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("sweep: purges projects expired past the grace period and their tokens", async () => {
    const server = await startTestServer({ projectTtlSeconds: 1, projectPurgeGraceSeconds: 1 });
    try {
      const p = await createTestProject(server.urls.api, "purged");
      await deployFiles(server.urls.api, p, { "/index.html": "purged" });
      await sleep(2100);
      const result = await sweepExpired(server.services);
      expect(result.projectsPurged).toBe(1);
      const res = await api(server.urls.api, "DELETE", `/projects/${p.slug}`, {
        token: p.token,
        body: identity(p),
      });
      expect(res.status).toBe(401);
    } finally {
      await server.stop();
    }
  });
});
