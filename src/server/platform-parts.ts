import { join } from "node:path";
import type { Logger } from "pino";
import type { Platform } from "../core/ports/index.js";
import type { Metrics } from "../shared/observability/metrics.js";
import type { OutageLog } from "../shared/observability/outage-log.js";
import type { ServerConfig } from "./config.js";
import { type SelfHostedParts, openSelfHostedPlatform } from "./selfhost-wiring.js";
import { platformPostgres } from "./metadata-store.js";
import type { ConnectionBudget } from "./connection-budget.js";

/** The platform a process publishes to, and the built-in one's listeners when it is that one. */
export interface PlatformParts {
  platform: Platform;
  /** The built-in platform whole; absent with Cloudflare, which uploads and serves itself. */
  local?: SelfHostedParts;
  close(): Promise<void>;
}

/**
 * Opens the platform PLATFORM names: Cloudflare (nothing local: its upload service and edge are
 * Cloudflare's), or the built-in one on DATA_DIR, PostgreSQL or an object store.
 */
export async function openPlatformParts(
  config: ServerConfig,
  deps: {
    uploadUrl: string | undefined;
    now: () => number;
    logger: Logger;
    metrics: Metrics;
    /** The platform's share of the process's PostgreSQL connections (connection-budget.ts). */
    budget: ConnectionBudget;
    outages?: OutageLog;
  },
): Promise<PlatformParts> {
  const { now, logger, metrics } = deps;
  if (config.cloudflare) {
    // Loaded only here: Cloudflare's SDK costs a server that does not use it ~40 MB of memory.
    const { openCloudflarePlatform } = await import("../platform/cloudflare/open-cloudflare.js");
    const platform = openCloudflarePlatform(config.cloudflare, config, now);
    return { platform, close: () => platform.close() };
  }
  // Only the API hands out the upload URL, and loadConfig makes sure an API process knows it.
  const uploadBaseUrl = config.uploadPublicUrl ?? deps.uploadUrl ?? "";
  const postgres = platformPostgres(config);
  const local = await openSelfHostedPlatform(join(config.dataDir, "platform"), {
    uploadBaseUrl: uploadBaseUrl.replace(/\/$/, ""),
    uploadJwtSecret: config.uploadJwtSecret,
    bucketLimits: { maxBytes: config.bucketMaxBytes, maxFiles: config.bucketMaxFiles },
    maxAssetBytes: config.maxAssetBytes,
    hashThreads: config.uploadHashThreads,
    storage: {
      projectQuotaBytes: config.projectQuotaBytes,
      pendingQuotaBytes: config.pendingQuotaBytes,
      clientQuotaBytes: config.clientQuotaBytes,
      clientQuotaWindowSeconds: config.clientQuotaWindowSeconds,
      minFreeBytes: config.minFreeBytes,
    },
    sitesDomain: config.sitesDomain,
    edgeCacheBytes: config.edgeCacheBytes,
    bodyPace: config.bodyPace,
    objectStore: config.objectStore,
    now,
    logger,
    metrics,
    postgres: postgres && { ...postgres, maxConnections: deps.budget.platform },
    // Only an edge reads what other processes publish; the others' own writes tell their readers.
    listenForManifest: deps.budget.listen > 0,
    ...(deps.outages && { outages: deps.outages }),
  });
  return { platform: local.platform, local, close: () => local.close() };
}
