import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { sample } from "../support/prometheus-text.js";
import { startTestServer } from "../support/server.js";

type Server = Awaited<ReturnType<typeof startTestServer>>;

async function scrape(server: Server): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`${server.urls.ops}/metrics`);
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

describe("/metrics", () => {
  let server: Server;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(async () => {
    await server.stop();
  });

  it("GET /metrics: requests by role, route pattern and status, deploys, bytes uploaded, content stored", async () => {
    const project = await createTestProject(server.urls.api, "metrics");
    const files = { "/index.html": "<h1>counted</h1>", "/app.js": "console.log(1)".repeat(50) };
    await deployFiles(server.urls.api, project, files);

    const { status, type, text } = await scrape(server);
    expect(status).toBe(200);
    expect(type).toContain("text/plain");
    const api = (route: string, method: string, code: string) =>
      sample(text, "http_requests_total", { role: "api", route, method, status: code });
    expect(api("/projects", "POST", "201")).toBe(1);
    expect(api("/projects/:projectSlug/deploy", "POST", "200")).toBe(1);
    expect(sample(text, "deploys_total")).toBe(1);
    const upload = sample(text, "http_requests_total", {
      role: "upload",
      route: "/accounts/:accountId/workers/assets/upload",
      method: "POST",
    });
    expect(upload).toBeGreaterThanOrEqual(1);
    // Base64 of both files inside the multipart framing: more than the files, not wildly more.
    const uploaded = sample(text, "upload_bytes_total")!;
    const siteBytes = Object.values(files).reduce((sum, body) => sum + body.length, 0);
    expect(uploaded).toBeGreaterThan(siteBytes);
    expect(uploaded).toBeLessThan(siteBytes * 2 + 4096);
    expect(sample(text, "content_stored_bytes", { kind: "live" })).toBe(siteBytes);
    expect(sample(text, "content_packs")).toBe(1);
    expect(sample(text, "http_request_duration_seconds_count", { role: "api", route: "/projects" })).toBe(1);
  });

  it("GET /metrics: the edge counts requests under one route and its cache's hits and misses", async () => {
    const project = await createTestProject(server.urls.api, "edge-metrics");
    await deployFiles(server.urls.api, project, { "/index.html": "<h1>hot</h1>" });
    const host = `${project.slug}.localhost`;
    expect((await edgeGet(server.urls.edge, host, "/")).status).toBe(200);
    expect((await edgeGet(server.urls.edge, host, "/")).status).toBe(200);
    expect((await edgeGet(server.urls.edge, host, "/no-such-page-7f3a")).status).toBe(404);

    const { text } = await scrape(server);
    expect(sample(text, "http_requests_total", { role: "edge", route: "site", status: "200" })).toBe(2);
    expect(sample(text, "http_requests_total", { role: "edge", route: "site", status: "404" })).toBe(1);
    expect(sample(text, "edge_cache_misses_total")).toBe(1);
    expect(sample(text, "edge_cache_hits_total")).toBe(1);
    expect(sample(text, "edge_cache_bytes")).toBeGreaterThan(0);
  });

  it("GET /metrics: no label carries what a stranger sent (paths, hosts, methods)", async () => {
    await edgeGet(server.urls.edge, "stranger-host-91c2.localhost", "/probe-path-5e1d");
    await api(server.urls.api, "GET", "/probe-route-77aa");
    await api(server.urls.api, "PROPFIND", "/projects/probe-slug-3b9f/deploy");

    const { text } = await scrape(server);
    for (const sent of [
      "stranger-host-91c2",
      "probe-path-5e1d",
      "probe-route-77aa",
      "probe-slug-3b9f",
      "PROPFIND",
    ]) {
      expect(text).not.toContain(sent);
    }
    expect(sample(text, "http_requests_total", { role: "api", route: "unmatched", status: "404" })).toBe(1);
    expect(sample(text, "http_requests_total", { role: "api", method: "OTHER", status: "405" })).toBe(1);
  });

  it("upload service: a request to an unknown route is counted as unmatched with its real status, 404, not 200", async () => {
    const response = await fetch(`${server.urls.upload}/nothing-here-for-uploads`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).errors[0].code).toBe(10007);
    const { text } = await scrape(server);
    expect(sample(text, "http_requests_total", { role: "upload", route: "unmatched", status: "404" })).toBe(
      1,
    );
    expect(
      sample(text, "http_requests_total", { role: "upload", route: "unmatched", status: "200" }),
    ).toBeUndefined();
  });

  it("GET /healthz on the operator listener: the store and the platform answer", async () => {
    const response = await fetch(`${server.urls.ops}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", checks: { store: "ok", platform: "ok" } });
  });

  it("GET on the operator listener of an unknown path: 404 with a JSON error", async () => {
    const response = await fetch(`${server.urls.ops}/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "not found" });
  });

  it("X-Request-Id: a well-formed id from the load balancer is kept, a malformed one replaced", async () => {
    const kept = await api(server.urls.api, "GET", "/health", {
      headers: { "x-request-id": "lb-0123456789abcdef" },
    });
    expect(kept.headers.get("x-request-id")).toBe("lb-0123456789abcdef");
    const replaced = await api(server.urls.api, "GET", "/health", {
      headers: { "x-request-id": "bad id\twith space" },
    });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
