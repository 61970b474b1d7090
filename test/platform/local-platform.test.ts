import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { afterAll } from "vitest";
import { type LocalPlatformOptions, openLocalPlatform } from "../../src/server/local-platform.js";
import { edgeGet } from "../support/http.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { tempDir } from "../support/server.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { type PlatformHarness, platformContract } from "./platform-contract.js";

const dir = tempDir("deploy-platform-");
afterAll(() => dir.cleanup());

async function serve(listener?: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer({ requireHostHeader: false }, listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

let opened = 0;
/** The local platform behind real listeners; `extra` picks, say, an object store for its packs. */
async function openHarness(extra: Partial<LocalPlatformOptions> = {}): Promise<PlatformHarness> {
  const clock = { now: Date.parse("2030-01-01T00:00:00Z") };
  const upload = await serve();
  const edge = await serve();
  const local = await openLocalPlatform(`${dir.path}/platform-${opened++}`, {
    uploadBaseUrl: upload.url,
    bucketLimits: { maxBytes: 1024 * 1024, maxFiles: 100 },
    maxAssetBytes: 1024 * 1024,
    sitesDomain: "sites.test",
    edgeCacheBytes: 1024 * 1024,
    now: () => clock.now,
    logger: pino({ level: "silent" }),
    ...extra,
  });
  upload.server.on("request", local.uploadListener);
  edge.server.on("request", local.edgeListener);
  return {
    platform: local.platform,
    clock,
    async fetchSite(hostname, path) {
      const reply = await edgeGet(edge.url, hostname, path);
      const link = reply.headers.link;
      return {
        status: reply.status,
        body: reply.body.toString("utf8"),
        ...(typeof link === "string" ? { link } : {}),
      };
    },
    async close() {
      await Promise.all([stop(upload.server), stop(edge.server)]);
      await local.platform.close();
    },
  };
}

platformContract("local", () => openHarness());

// One S3-protocol server for the file; each platform gets a prefix of its own.
let objectStore: Promise<TestObjectStore> | undefined;
afterAll(async () => (await objectStore)?.close());
platformContract("local with packs in an object store (s3rver)", async () => {
  objectStore ??= startObjectStore();
  return openHarness({ objectStore: (await objectStore).settings() });
});
await describePostgres("local platform on PostgreSQL", () => {
  platformContract("local on PostgreSQL", () => openHarness({ postgres: testPostgres() }));
});
