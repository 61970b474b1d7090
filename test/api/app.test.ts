import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiApp } from "../../src/api/app.js";
import { RateLimiter } from "../../src/core/rate-limiter.js";
import { hex64 } from "../support/deploy-flow.js";
import { startTestServer } from "../support/server.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/**
 * The API app on a running server's services, built inside the test that uses it (mutation testing
 * activates a mutant only while a test runs, and the routes are registered when the app is built),
 * without metrics, answering through `app.request`.
 */
function apiApp(server: TestServer) {
  const limit = () => new RateLimiter({ limit: 1000, windowSeconds: 60 }, server.clock);
  const app = createApiApp({
    services: server.services,
    logger: pino({ level: "silent" }),
    corsOrigin: "*",
    maxBodyBytes: 1024 * 1024,
    bodyBudget: { maxBytes: 0, maxBytesPerAddress: 0 },
    createLimits: { perAddress: limit(), perFingerprint: limit() },
    prepareLimits: { perAddress: limit(), perProject: limit() },
    domainLimits: { perAddress: limit(), perProject: limit() },
    tlsAsk: { perAddress: limit(), unknownNames: limit(), trustedAddresses: [] },
    clientAddress: () => "127.0.0.1",
    publicUrl: () => "https://api.example",
  });
  return async (method: string, path: string, options: { token?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    if (options.token) headers["authorization"] = `Bearer ${options.token}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const response = await app.request(path, { method, headers, body });
    const text = await response.text();
    return { status: response.status, text, json: () => JSON.parse(text) };
  };
}

describe("createApiApp", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it("createApiApp: without metrics, the health routes, the OpenAPI document and Caddy's question answer at their paths", async () => {
    const call = apiApp(server);
    const health = await call("GET", "/health");
    expect([health.status, health.json()]).toEqual([200, { status: "ok" }]);
    expect((await call("GET", "/healthz")).status).toBe(200);
    const openapi = await call("GET", "/openapi.json");
    expect(openapi.status).toBe(200);
    expect(openapi.json().servers).toEqual([{ url: "https://api.example" }]);
    const ask = await call("GET", "/tls/ask?domain=nobody.example.com");
    expect([ask.status, ask.text]).toEqual([404, "no live site on this hostname\n"]);
  });

  it("createApiApp: each project route answers at its path, not 405", async () => {
    const call = apiApp(server);
    const identity = { projectHash: hex64("app-routes"), anonFingerprint: hex64("app-routes-fp") };
    const created = await call("POST", "/projects", { body: identity });
    expect(created.status).toBe(201);
    const { project, apiToken: token } = created.json();
    const slug = project.projectSlug as string;
    const answers: Record<string, [number, string | undefined]> = {};
    const ask = async (method: string, path: string, body: Record<string, unknown>) => {
      const res = await call(method, path, { token, body: { ...identity, ...body } });
      answers[`${method} ${path.replace(slug, ":slug")}`] = [res.status, res.json().error?.code];
    };
    await ask("POST", `/projects/${slug}/state`, {});
    await ask("POST", `/projects/${slug}/prepare`, { manifest: {} });
    await ask("POST", `/projects/${slug}/deploy`, { deployId: "no-such-deploy", completionJwt: "x" });
    await ask("POST", `/projects/${slug}/promote`, { revisionId: "abcdefghij" });
    await ask("POST", `/projects/${slug}/domains/check`, {});
    await ask("POST", `/projects/${slug}/domains`, { domain: "app-routes.localhost" });
    await ask("DELETE", `/projects/${slug}/domains`, {});
    await ask("DELETE", `/projects/${slug}`, {});
    expect(answers).toEqual({
      "POST /projects/:slug/state": [200, undefined],
      "POST /projects/:slug/prepare": [200, undefined],
      "POST /projects/:slug/deploy": [404, "DEPLOY_NOT_FOUND"],
      "POST /projects/:slug/promote": [404, "REVISION_NOT_FOUND"],
      "POST /projects/:slug/domains/check": [404, "DOMAIN_NOT_ASSIGNED"],
      "POST /projects/:slug/domains": [200, undefined],
      "DELETE /projects/:slug/domains": [200, undefined],
      "DELETE /projects/:slug": [200, undefined],
    });
  });
});
