import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../support/http.js";
import { startTestServer } from "../support/server.js";

describe("routing", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ corsOrigin: "https://app.example" });
  });
  afterAll(async () => server.stop());

  it("GET /health: 200 { status: ok }", async () => {
    const res = await api(server.urls.api, "GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("GET /healthz: 200 with every dependency checked", async () => {
    const res = await api(server.urls.api, "GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", checks: { store: "ok", platform: "ok" } });
  });

  it("unknown route under /projects: 405 in the string form", async () => {
    for (const [method, path] of [
      ["GET", "/projects"],
      ["GET", "/projects/brave-otter-abcde"],
      ["PUT", "/projects/brave-otter-abcde/prepare"],
      ["POST", "/projects/brave-otter-abcde/unknown"],
      ["PATCH", "/projects"],
    ] as const) {
      const res = await api(server.urls.api, method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.body).toEqual({ error: "method not allowed" });
    }
  });

  it("unknown route elsewhere: 404 in the string form", async () => {
    for (const path of ["/", "/nope", "/project", "/healthzz"]) {
      const res = await api(server.urls.api, "GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: "not found" });
    }
  });

  it("OPTIONS: 204 preflight with the configured CORS headers, on any route", async () => {
    for (const path of ["/projects", "/projects/x/prepare", "/anything"]) {
      const res = await fetch(server.urls.api + path, { method: "OPTIONS" });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example");
      expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE, OPTIONS");
      expect(res.headers.get("access-control-allow-headers")).toBe("Authorization, Content-Type");
      expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
    }
  });

  it("any response: carries the allowed origin", async () => {
    const res = await api(server.urls.api, "GET", "/health");
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });

  it("GET /openapi.json: documents every route from the validating schemas", async () => {
    const res = await api(server.urls.api, "GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        "/health",
        "/healthz",
        "/projects",
        "/projects/{projectSlug}",
        "/projects/{projectSlug}/prepare",
        "/projects/{projectSlug}/deploy",
        "/projects/{projectSlug}/domains",
      ]),
    );
    const prepare = res.body.paths["/projects/{projectSlug}/prepare"].post;
    // Two forms: the manifest (the seed's), or its digest alone for an unchanged redeploy.
    const [withManifest, byDigest] = prepare.requestBody.content["application/json"].schema.anyOf;
    expect(withManifest.required).toEqual(
      expect.arrayContaining(["projectHash", "anonFingerprint", "manifest"]),
    );
    expect(withManifest.properties.projectHash.pattern).toBe("^[0-9a-fA-F]{64}$");
    expect(byDigest.required).toEqual(
      expect.arrayContaining(["projectHash", "anonFingerprint", "manifestDigest", "skipUnchanged"]),
    );
    expect(byDigest.properties.manifest).toBeUndefined();
  });
});
