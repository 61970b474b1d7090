import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { type SelfHostedPlatformOptions, openSelfHostedPlatform } from "../../src/server/selfhost-wiring.js";
import { edgeGet } from "../support/http.js";
import type { PlatformHarness } from "./platform-contract.js";

let opened = 0;

async function serve(listener?: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer({ requireHostHeader: false }, listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * The self-hosted platform in a folder of its own under `root`, behind real upload and edge listeners;
 * `extra` picks, say, PostgreSQL or an object store.
 */
export async function openSelfHostedHarness(
  root: string,
  extra: Partial<SelfHostedPlatformOptions> = {},
): Promise<PlatformHarness> {
  const clock = { now: Date.parse("2030-01-01T00:00:00Z") };
  const upload = await serve();
  const edge = await serve();
  const local = await openSelfHostedPlatform(`${root}/platform-${opened++}`, {
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
      await local.close();
    },
  };
}
