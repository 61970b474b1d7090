import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, startServer } from "../../src/server/index.js";
import { startProcess } from "../../src/server/start.js";
import { freePort } from "../support/free-port.js";
import { ON_LOOPBACK, startTestServer, tempDir } from "../support/server.js";

const DAY = 86_400;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

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
      domainPendingDays: 5,
      domainCheckIntervalSeconds: 14,
      maxAssets: 15,
      maxAssetBytes: 16,
    });
    cleanups.push(() => server.stop());
    expect(server.services.config).toEqual({
      sites: { scheme: "https", publicPort: 8443, sitesDomain: "sites.test", cnameTarget: "edge.sites.test" },
      deployTtlSeconds: 11,
      projectTtlSeconds: 12,
      projectPurgeGraceSeconds: 13,
      domainQuarantineSeconds: 2 * DAY,
      retention: { revisionsKept: 3, minAgeSeconds: 4 * DAY },
      domainPendingSeconds: 5 * DAY,
      domainCheckIntervalSeconds: 14,
      limits: { maxAssets: 15, maxAssetBytes: 16 },
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
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const running = await startProcess({
      ...ON_LOOPBACK,
      dataDir: dir.path,
      roles: ["upload", "edge"],
    });
    cleanups.push(() => running.close());
    expect(Object.keys(running.urls).sort()).toEqual(["edge", "ops", "upload"]);
    expect(running.platform).toBeDefined();
    // No API here: no sweeper either, and the edge still answers (a 404 for an unknown site).
    const response = await fetch(`${running.urls.edge}/`, { headers: { host: "nothing.localhost" } });
    expect(response.status).toBe(404);
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
