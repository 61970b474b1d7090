import { describe, expect, it } from "vitest";
import { createTestProject, identity, manifestOf } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

describe("dependency failures", () => {
  it("platform down: prepare answers 502 UPLOAD_PLATFORM_ERROR, records nothing, and /healthz 503", async () => {
    const server = await startTestServer();
    try {
      const p = await createTestProject(server.urls.api, "platform-down");
      const { manifest } = await manifestOf(p.slug, { "/index.html": "x" });
      await server.platform.close();
      const before = snapshotStore(server.dataDir);
      const res = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { ...identity(p), manifest },
      });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe("UPLOAD_PLATFORM_ERROR");
      // No preparation is recorded for a session the platform never opened.
      expect(snapshotStore(server.dataDir)).toEqual(before);
      // The cause (a database message, a path) is for the server's log, not the client.
      expect(res.body.error.message).toBe("the upload platform failed; try again later");
      const health = await api(server.urls.api, "GET", "/healthz");
      expect(health.status).toBe(503);
      expect(health.body).toEqual({ status: "degraded", checks: { store: "ok", platform: "down" } });
    } finally {
      await server.stop();
    }
  });

  it("store down: 500 INTERNAL with no stack trace or internal detail, and /healthz 503 naming the store", async () => {
    const server = await startTestServer();
    try {
      await server.services.store.close();
      const res = await api(server.urls.api, "POST", "/projects", {
        body: { projectHash: "a".repeat(64), anonFingerprint: "b".repeat(64) },
      });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: "INTERNAL", message: "internal error" } });
      const health = await api(server.urls.api, "GET", "/healthz");
      expect(health.status).toBe(503);
      expect(health.body).toEqual({ status: "degraded", checks: { store: "down", platform: "ok" } });
    } finally {
      await server.stop().catch(() => undefined);
    }
  });
});
