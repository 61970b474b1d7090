import fs from "node:fs";
import { createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigError, loadConfig, startServer } from "../../src/server/index.js";
import { startProcess } from "../../src/server/start.js";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import { startCloudflareApi } from "../support/cloudflare-api/server.js";
import { createTestProject, identity, manifestOf } from "../support/deploy-flow.js";
import { freePort } from "../support/free-port.js";
import { api } from "../support/http.js";
import { capturingLogger } from "../support/log-lines.js";
import { sample, sumOf } from "../support/prometheus-text.js";
import { rawMessage, rawRequest } from "../support/raw-http.js";
import { ON_LOOPBACK, startTestServer, tempDir } from "../support/server.js";

const DAY = 86_400;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type ProcessSettings = Parameters<typeof startProcess>[0];

/**
 * A process on loopback and a temporary DATA_DIR, removed after the test; closed after it too,
 * unless the test closes it itself (`closedByTest`).
 */
async function startOnLoopback(settings: ProcessSettings, closedByTest = false) {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const running = await startProcess({ ...ON_LOOPBACK, dataDir: dir.path, ...settings });
  if (!closedByTest) cleanups.push(() => running.close());
  return running;
}

/** A process of `roles` on the built-in platform, on loopback and a temporary DATA_DIR, closed after the test. */
function startRoles(roles: ("api" | "upload" | "edge")[], settings: { sweepIntervalSeconds?: number } = {}) {
  return startOnLoopback({ roles, ...settings });
}

/** The operator listener's /metrics text. */
async function metricsOf(opsUrl: string): Promise<string> {
  return (await fetch(`${opsUrl}/metrics`)).text();
}

/** True when `port` on 127.0.0.1 can be listened on now: nothing holds it. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

describe("starting a process", () => {
  it("startServer: the domain's settings come from the configuration, days as seconds", async () => {
    const server = await startTestServer({
      publicScheme: "https",
      publicEdgePort: 8443,
      sitesDomain: "sites.test",
      cnameTarget: "edge.sites.test",
      deployTtlSeconds: 11,
      projectTtlSeconds: 12,
      projectPurgeGraceSeconds: 13,
      domainQuarantineDays: 2,
      revisionsKept: 3,
      revisionMinAgeDays: 4,
      revisionsMax: 6,
      domainPendingDays: 5,
      domainCheckIntervalSeconds: 14,
      maxAssets: 15,
      maxAssetBytes: 16,
      projectQuotaBytes: 17,
      pendingQuotaBytes: 18,
      clientQuotaBytes: 19,
    });
    cleanups.push(() => server.stop());
    expect(server.services.config).toEqual({
      sites: { scheme: "https", publicPort: 8443, sitesDomain: "sites.test", cnameTarget: "edge.sites.test" },
      deployTtlSeconds: 11,
      projectTtlSeconds: 12,
      projectPurgeGraceSeconds: 13,
      domainQuarantineSeconds: 2 * DAY,
      retention: { revisionsKept: 3, minAgeSeconds: 4 * DAY, revisionsMax: 6 },
      domainPendingSeconds: 5 * DAY,
      domainCheckIntervalSeconds: 14,
      limits: { maxAssets: 15, maxAssetBytes: 16, maxManifestBytes: 16 * 1024 * 1024 },
      quotas: { projectBytes: 17, pendingBytes: 18, clientBytes: 19 },
    });
  });

  it("startServer: without PUBLIC_EDGE_PORT the sites' port is the edge listener's own", async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const edgePort = Number(new URL(server.urls.edge).port);
    expect(edgePort).toBeGreaterThan(0);
    expect(server.services.config.sites.publicPort).toBe(edgePort);
  });

  it("startProcess: only the listeners of ROLES open, beside the operator listener", async () => {
    const running = await startRoles(["upload", "edge"]);
    expect(Object.keys(running.urls).sort()).toEqual(["edge", "ops", "upload"]);
    expect(running.platform).toBeDefined();
    // No API here: no sweeper either, and the edge still answers (a 404 for an unknown site).
    const response = await fetch(`${running.urls.edge}/`, { headers: { host: "nothing.localhost" } });
    expect(response.status).toBe(404);
  });

  it("startServer: the edge answers an HTTP/1.1 request without Host itself, the API and upload listeners leave it to Node", async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const noHost = rawMessage("GET", "/", [["Connection", "close"]]);
    const edge = await rawRequest(server.urls.edge, noHost);
    expect(edge.status).toBe(400);
    expect(edge.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(edge.body.toString()).toBe("Bad Request\n");
    // Node's own refusal (requireHostHeader): no body, no Content-Type, and the connection closed
    // though the client did not ask.
    const keepAlive = rawMessage("GET", "/", []);
    for (const url of [server.urls.api, server.urls.upload]) {
      const refused = await rawRequest(url, keepAlive, 2_000);
      expect(refused.status).toBe(400);
      expect(refused.headers["connection"]).toBe("close");
      expect(refused.headers["content-type"]).toBeUndefined();
      expect(refused.body.toString()).toBe("");
    }
  });

  it("startServer: a request the edge's HTTP parser refuses gets a plain-text answer", async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const malformed = "GET / HTTP/1.1\r\nHost: site.localhost\r\nno colon here\r\n\r\n";
    const reply = await rawRequest(server.urls.edge, malformed);
    expect(reply.status).toBe(400);
    expect(reply.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(reply.body.toString()).toBe("Bad Request\n");
  });

  it("startProcess: the API alone on the built-in platform opens no upload or edge listener and reports no edge cache", async () => {
    const apiOnly = await startRoles(["api"]);
    expect(Object.keys(apiOnly.urls).sort()).toEqual(["api", "ops"]);
    const text = await metricsOf(apiOnly.urls.ops);
    expect(sample(text, "edge_cache_bytes")).toBeUndefined();
    expect(sample(text, "content_packs")).toBe(0);
    const withEdge = await startRoles(["edge"]);
    expect(Object.keys(withEdge.urls).sort()).toEqual(["edge", "ops"]);
    expect(sample(await metricsOf(withEdge.urls.ops), "edge_cache_bytes")).toBe(0);
  });

  it("startProcess: only a process with the API role sweeps, and closing it stops its sweeper", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const interval = { sweepIntervalSeconds: 60 };
    const edge = await startRoles(["upload", "edge"], interval);
    const { logger, lines } = capturingLogger();
    const api = await startOnLoopback({ roles: ["api"], logger, ...interval }, true);
    vi.advanceTimersByTime(60_000);
    await expect
      .poll(async () => sumOf(await metricsOf(api.urls.ops), "gc_runs_total", { result: "ok" }))
      .toBe(1);
    expect(sumOf(await metricsOf(edge.urls.ops), "gc_runs_total")).toBe(0);
    await api.close();
    // A sweep after close would meet the closed store at its first query and log its failure.
    vi.advanceTimersByTime(60_000);
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(lines.filter((line) => line.msg?.startsWith("sweep"))).toEqual([
      expect.objectContaining({ msg: "sweep" }),
    ]);
  });

  it("startProcess: without a logger given, it logs to stdout at LOG_LEVEL", async () => {
    // pino writes straight to file descriptor 1 (sonic-boom's fs.write): the lines are kept here
    // instead, and the write reported done.
    const written: string[] = [];
    const write = fs.write;
    vi.spyOn(fs, "write").mockImplementation(((fd: number, data: string | Buffer, ...rest: unknown[]) => {
      if (fd !== 1) return (write as (...args: unknown[]) => void)(fd, data, ...rest);
      written.push(data.toString());
      const done = rest.at(-1) as (error: null, bytes: number) => void;
      setImmediate(() => done(null, Buffer.byteLength(data)));
    }) as unknown as typeof fs.write);
    cleanups.push(() => {
      vi.restoreAllMocks();
    });
    const requestLines = () =>
      written
        .join("")
        .split("\n")
        .filter((line) => line.includes('"msg":"request"'));
    for (const logLevel of ["info", "warn"] as const) {
      const running = await startOnLoopback({ roles: ["api", "upload", "edge"], logLevel }, true);
      await fetch(`${running.urls.api}/v1/${logLevel}-request`);
      await running.close();
    }
    await expect.poll(requestLines).toHaveLength(1);
    expect(requestLines()[0]).toContain('"path":"/v1/info-request"');
  });

  it("startProcess: the API names API_PUBLIC_URL and UPLOAD_PUBLIC_URL without their trailing slash, else its own listener", async () => {
    const told = await startOnLoopback({
      roles: ["api"],
      apiPublicUrl: "https://api.example.test/",
      uploadPublicUrl: "https://upload.example.test/",
      publicEdgePort: 443,
    });
    const openapi = await api(told.urls.api!, "GET", "/openapi.json");
    expect(openapi.body.servers).toEqual([{ url: "https://api.example.test" }]);
    const project = await createTestProject(told.urls.api!, "public-urls");
    const { manifest } = await manifestOf(project.slug, { "/index.html": "<h1>told</h1>" });
    const prepared = await api(told.urls.api!, "POST", `/projects/${project.slug}/prepare`, {
      token: project.token,
      body: { ...identity(project), manifest },
    });
    expect(prepared.body.urls.upload).toMatch(
      /^https:\/\/upload\.example\.test\/accounts\/[0-9a-f]+\/workers\/assets\/upload\?base64=true$/,
    );
    const own = await startTestServer();
    cleanups.push(() => own.stop());
    expect((await api(own.urls.api, "GET", "/openapi.json")).body.servers).toEqual([{ url: own.urls.api }]);
  });

  it("startProcess: close frees the ports and closes the store and the platform", async () => {
    const running = await startOnLoopback({ roles: ["api", "upload", "edge"] }, true);
    const ports = Object.values(running.urls).map((url) => Number(new URL(url).port));
    await running.close();
    for (const port of ports) expect(await portFree(port)).toBe(true);
    await expect(running.services.store.ping()).rejects.toThrow();
    await expect(running.platform!.contentStats()).rejects.toThrow();
  });

  it("startProcess: its metrics name the process's roles, comma-separated", async () => {
    const running = await startRoles(["upload", "edge"]);
    expect(await metricsOf(running.urls.ops)).toContain('process_roles="upload,edge"');
  });

  it("startProcess: with Cloudflare's settings the API opens no built-in platform and publishes to Cloudflare", async () => {
    const cloudflareApi = await startCloudflareApi({ apiToken: CF.apiToken, now: () => Date.now() });
    cleanups.push(() => cloudflareApi.close());
    const running = await startOnLoopback({
      roles: ["api"],
      cloudflare: { ...CF, apiBaseUrl: cloudflareApi.url },
    });
    expect(running.platform).toBeUndefined();
    expect(Object.keys(running.urls).sort()).toEqual(["api", "ops"]);
    await running.services.platform.check();
    expect(cloudflareApi.calls).toEqual(["GET /client/v4/user/tokens/verify"]);
  });

  it("startServer: refuses Cloudflare's settings with a ConfigError (the built-in platform only)", async () => {
    const cloudflare = {
      accountId: "0".repeat(32),
      apiToken: "t".repeat(24),
      dispatchNamespace: "sites",
      kvNamespaceId: "1".repeat(32),
      zoneId: "2".repeat(32),
      apiBaseUrl: "http://127.0.0.1:1/client/v4",
    };
    await expect(startServer({ cloudflare })).rejects.toBeInstanceOf(ConfigError);
    await expect(startServer({ cloudflare })).rejects.toThrow(
      "startServer runs the built-in platform; use startProcess",
    );
    await expect(startProcess({ cloudflare, roles: ["api", "edge"] })).rejects.toThrow(
      /^ROLES: with PLATFORM=cloudflare a process runs only the api role/,
    );
  });

  it("startProcess: a store that cannot open fails the start and closes the listeners it had opened", async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const [port, uploadPort, edgePort, metricsPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    await expect(
      startProcess({
        ...loadConfig({}),
        host: "127.0.0.1",
        port,
        uploadPort,
        edgePort,
        metricsPort,
        dataDir: dir.path,
        // Nothing listens on port 1: the store's first connection is refused.
        databaseUrl: "postgres://postgres@127.0.0.1:1/test",
      }),
    ).rejects.toMatchObject({ code: "DATABASE_UNAVAILABLE" });
    for (const held of [port, uploadPort, edgePort, metricsPort]) expect(await portFree(held)).toBe(true);
  });
});
