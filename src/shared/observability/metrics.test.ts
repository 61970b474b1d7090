import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Metrics } from "./metrics.js";
import { observeNodeRequests, requestMetrics } from "./request-metrics.js";

/** The lines of a rendering that start with `prefix`. */
async function lines(metrics: Metrics, prefix: string): Promise<string[]> {
  const { body } = await metrics.render();
  return body.split("\n").filter((line) => line.startsWith(prefix));
}

describe("Metrics", () => {
  afterEach(() => vi.restoreAllMocks());

  it("Metrics.render: Prometheus's text format, every series labelled with the process's roles", async () => {
    const metrics = new Metrics("api,edge");
    metrics.deploys.inc();
    const rendered = await metrics.render();
    expect(rendered.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(rendered.body).toContain('deploys_total{process_roles="api,edge"} 1');
    expect(rendered.body).toContain("process_cpu_user_seconds_total{");
  });

  it("Metrics: each metric has its help text", async () => {
    const metrics = new Metrics("api");
    metrics.addSources({
      edgeCache: () => ({ hits: 0, misses: 0, bytes: 0 }),
      content: async () => ({ packs: 0, bytes: 0, liveBytes: 0 }),
    });
    const help = new Map(
      (await lines(metrics, "# HELP ")).map((line) => {
        const [, , name, ...text] = line.split(" ");
        return [name, text.join(" ")];
      }),
    );
    expect(Object.fromEntries([...help].filter(([name]) => !/^(process|nodejs)_/.test(name!)))).toEqual({
      http_requests_total: "HTTP requests answered, by role, route pattern, method and status.",
      http_request_duration_seconds:
        "Time from a request's arrival to its answer, by role and route pattern.",
      deploys_total: "Deploys completed: revisions published.",
      upload_bytes_total: "Bytes of bucket bodies accepted by the upload service.",
      gc_runs_total: "Sweeps (expiry and garbage collection) run, by result.",
      gc_reclaimed_bytes_total: "Content bytes the sweeps reclaimed.",
      edge_cache_hits_total: "Edge content lookups answered from memory.",
      edge_cache_misses_total: "Edge content lookups that read the store.",
      edge_cache_bytes: "Bytes the edge's memory cache holds.",
      content_packs: "Packs of content stored.",
      api_body_bytes_in_flight: "Request body bytes the API has received and not yet answered.",
      content_stored_bytes:
        "Bytes of content stored: all pack bytes, and the live ones that rows still name.",
    });
  });

  it("Metrics.observeRequest: counts by role, route, method and status; an unusual method is OTHER", async () => {
    const metrics = new Metrics("api");
    for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      metrics.observeRequest("api", "/x", method, 200, 0.003);
    }
    metrics.observeRequest("api", "/x", "PROPFIND", 405, 0.003);
    metrics.observeRequest("api", "/x", "get", 404, 0.003);
    const counted = await lines(metrics, "http_requests_total{");
    expect(counted).toHaveLength(9);
    for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      expect(counted).toContain(
        `http_requests_total{role="api",route="/x",method="${method}",status="200",process_roles="api"} 1`,
      );
    }
    expect(counted).toContain(
      'http_requests_total{role="api",route="/x",method="OTHER",status="405",process_roles="api"} 1',
    );
    expect(counted).toContain(
      'http_requests_total{role="api",route="/x",method="OTHER",status="404",process_roles="api"} 1',
    );
  });

  it("Metrics.observeRequest: latency lands in buckets from 1 ms to 10 s", async () => {
    const metrics = new Metrics("edge");
    metrics.observeRequest("edge", "site", "GET", 200, 0.003);
    const buckets = (await lines(metrics, "http_request_duration_seconds_bucket{")).map(
      (line) => /le="([^"]+)"/.exec(line)![1],
    );
    expect(buckets).toEqual([
      "0.001",
      "0.0025",
      "0.005",
      "0.01",
      "0.025",
      "0.05",
      "0.1",
      "0.25",
      "0.5",
      "1",
      "2.5",
      "5",
      "10",
      "+Inf",
    ]);
    expect(await lines(metrics, 'http_request_duration_seconds_bucket{le="0.0025"')).toEqual([
      'http_request_duration_seconds_bucket{le="0.0025",process_roles="edge",role="edge",route="site"} 0',
    ]);
    expect(await lines(metrics, 'http_request_duration_seconds_bucket{le="0.005"')).toEqual([
      'http_request_duration_seconds_bucket{le="0.005",process_roles="edge",role="edge",route="site"} 1',
    ]);
    expect(await lines(metrics, "http_request_duration_seconds_sum{")).toEqual([
      'http_request_duration_seconds_sum{process_roles="edge",role="edge",route="site"} 0.003',
    ]);
  });

  it("Metrics.addSources: the edge cache's totals and the content figures are read at each scrape", async () => {
    const metrics = new Metrics("edge");
    const cache = { hits: 3, misses: 1, bytes: 500 };
    const content = { packs: 2, bytes: 900, liveBytes: 600 };
    metrics.addSources({ edgeCache: () => cache, content: async () => content });
    const read = async () => ({
      hits: await lines(metrics, "edge_cache_hits_total{"),
      misses: await lines(metrics, "edge_cache_misses_total{"),
      bytes: await lines(metrics, "edge_cache_bytes{"),
      packs: await lines(metrics, "content_packs{"),
      stored: await lines(metrics, "content_stored_bytes{"),
    });
    expect(await read()).toEqual({
      hits: ['edge_cache_hits_total{process_roles="edge"} 3'],
      misses: ['edge_cache_misses_total{process_roles="edge"} 1'],
      bytes: ['edge_cache_bytes{process_roles="edge"} 500'],
      packs: ['content_packs{process_roles="edge"} 2'],
      stored: [
        'content_stored_bytes{kind="all",process_roles="edge"} 900',
        'content_stored_bytes{kind="live",process_roles="edge"} 600',
      ],
    });
    Object.assign(cache, { hits: 10, misses: 4, bytes: 100 });
    Object.assign(content, { packs: 1, bytes: 300, liveBytes: 200 });
    expect(await read()).toEqual({
      hits: ['edge_cache_hits_total{process_roles="edge"} 10'],
      misses: ['edge_cache_misses_total{process_roles="edge"} 4'],
      bytes: ['edge_cache_bytes{process_roles="edge"} 100'],
      packs: ['content_packs{process_roles="edge"} 1'],
      stored: [
        'content_stored_bytes{kind="all",process_roles="edge"} 300',
        'content_stored_bytes{kind="live",process_roles="edge"} 200',
      ],
    });
  });

  it("Metrics.addSources: without sources, no edge cache or content series", async () => {
    const metrics = new Metrics("api");
    metrics.addSources({});
    const { body } = await metrics.render();
    expect(body).not.toContain("edge_cache");
    expect(body).not.toContain("content_");
  });

  it("requestMetrics: a request counted by its route pattern, unmatched ones as `unmatched`, with its latency", async () => {
    const times = [1000, 1250];
    vi.spyOn(performance, "now").mockImplementation(() => times.shift() ?? 5000);
    const metrics = new Metrics("api");
    const app = new Hono();
    app.use(requestMetrics(metrics, "api"));
    app.get("/projects/:slug", (c) => c.text("ok"));
    expect((await app.request("/projects/abc")).status).toBe(200);
    expect(await lines(metrics, "http_request_duration_seconds_sum{")).toEqual([
      'http_request_duration_seconds_sum{process_roles="api",role="api",route="/projects/:slug"} 0.25',
    ]);
    expect((await app.request("/nowhere")).status).toBe(404);
    expect(await lines(metrics, "http_requests_total{")).toEqual([
      'http_requests_total{role="api",route="/projects/:slug",method="GET",status="200",process_roles="api"} 1',
      'http_requests_total{role="api",route="unmatched",method="GET",status="404",process_roles="api"} 1',
    ]);
  });

  it("requestMetrics: a route that throws is still counted, with the status the error handler gave", async () => {
    const metrics = new Metrics("upload");
    const app = new Hono();
    app.use(requestMetrics(metrics, "upload"));
    app.post("/fail", () => {
      throw new Error("boom");
    });
    app.onError((_error, c) => c.text("failed", 503));
    expect((await app.request("/fail", { method: "POST" })).status).toBe(503);
    expect(await lines(metrics, "http_requests_total{")).toEqual([
      'http_requests_total{role="upload",route="/fail",method="POST",status="503",process_roles="upload"} 1',
    ]);
  });

  it("observeNodeRequests: a request answered within the handler's call is counted at once, with no close listener left on its response", async () => {
    const times = [1000, 1000.5];
    vi.spyOn(performance, "now").mockImplementation(() => times.shift() ?? 9000);
    const metrics = new Metrics("edge");
    const handler = observeNodeRequests(metrics, "edge", "site", (_req, res) => {
      res.statusCode = 200;
      res.end();
    });
    const req = new IncomingMessage(new Socket());
    req.method = "GET";
    const res = new ServerResponse(req);
    const listeners = res.listenerCount("close");
    handler(req, res);
    expect(res.listenerCount("close")).toBe(listeners);
    expect(await lines(metrics, "http_requests_total{")).toEqual([
      'http_requests_total{role="edge",route="site",method="GET",status="200",process_roles="edge"} 1',
    ]);
    expect(await lines(metrics, "http_request_duration_seconds_sum{")).toEqual([
      'http_request_duration_seconds_sum{process_roles="edge",role="edge",route="site"} 0.0005',
    ]);
  });

  it("observeNodeRequests: each request counted under the one route, with its method, status and latency in seconds, once its response closes", async () => {
    const times = [2000, 2125];
    vi.spyOn(performance, "now").mockImplementation(() => times.shift() ?? 9000);
    const metrics = new Metrics("edge");
    const seen: string[] = [];
    const handler = observeNodeRequests(metrics, "edge", "site", (req) => seen.push(req.method!));
    const req = new IncomingMessage(new Socket());
    req.method = "HEAD";
    const res = new ServerResponse(req);
    handler(req, res);
    expect(seen).toEqual(["HEAD"]);
    expect(await lines(metrics, "http_requests_total{")).toEqual([]);
    res.statusCode = 304;
    res.emit("close");
    expect(await lines(metrics, "http_requests_total{")).toEqual([
      'http_requests_total{role="edge",route="site",method="HEAD",status="304",process_roles="edge"} 1',
    ]);
    expect(await lines(metrics, "http_request_duration_seconds_sum{")).toEqual([
      'http_request_duration_seconds_sum{process_roles="edge",role="edge",route="site"} 0.125',
    ]);
  });
});
