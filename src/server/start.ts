import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { type Logger, pino } from "pino";
import { createApiApp } from "../api/app.js";
import { answerClientError } from "../edge/index.js";
import { type Clock, systemClock } from "../core/clock.js";
import { RateLimiter } from "../core/rate-limiter.js";
import { createServices, type ServiceConfig, type Services } from "../core/operations/services.js";
import type { LocalPlatform } from "../platform/local/local-platform.js";
import { openSqliteStore } from "../store/index.js";
import { clientAddress } from "./client-address.js";
import { loadConfig, type ServerConfig } from "./config.js";
import { listen } from "./listeners.js";
import { openLocalPlatform } from "./local-platform.js";
import { startSweeper } from "./sweeper.js";
import { DnsResolver } from "../shared/dns-resolver.js";

/** A running server: its three listeners' URLs and a graceful `close`. */
export interface RunningServer {
  urls: { api: string; upload: string; edge: string };
  config: ServerConfig;
  services: Services;
  platform: LocalPlatform;
  close(): Promise<void>;
}

/**
 * Starts the API, upload and edge listeners on one data directory. The binary calls it with the
 * environment's settings; tests call it with overrides (ports 0, a temporary DATA_DIR).
 */
export async function startServer(
  overrides: Partial<ServerConfig> & { logger?: Logger; clock?: Clock } = {},
): Promise<RunningServer> {
  const { logger: givenLogger, clock = systemClock, ...settings } = overrides;
  const config: ServerConfig = { ...loadConfig({}), ...settings };
  const logger = givenLogger ?? pino({ level: config.logLevel });
  const now = () => clock.now();

  const listeners = await Promise.all([
    listen(config.host, config.port, { timeouts: config.timeouts }),
    listen(config.host, config.uploadPort, { timeouts: config.timeouts }),
    // The edge answers a request without Host itself (404), rather than node's bare 400.
    listen(config.host, config.edgePort, { timeouts: config.timeouts, requireHostHeader: false }),
  ]);
  const [api, upload, edge] = listeners;
  // Closed in this order: listeners first (requests in flight finish), then what they use.
  const closers: (() => Promise<unknown>)[] = [() => Promise.all(listeners.map((l) => l.close()))];
  const closeAll = async () => {
    for (const close of closers) await close();
  };
  try {
    const store = await openSqliteStore(join(config.dataDir, "metadata.sqlite"));
    closers.push(() => store.close());
    const local = openLocalPlatform(join(config.dataDir, "platform"), {
      uploadBaseUrl: (config.uploadPublicUrl ?? upload.url).replace(/\/$/, ""),
      uploadJwtSecret: config.uploadJwtSecret,
      bucketLimits: { maxBytes: config.bucketMaxBytes, maxFiles: config.bucketMaxFiles },
      maxAssetBytes: config.maxAssetBytes,
      storage: {
        projectQuotaBytes: config.projectQuotaBytes,
        pendingQuotaBytes: config.pendingQuotaBytes,
        minFreeBytes: config.minFreeBytes,
      },
      sitesDomain: config.sitesDomain,
      edgeCacheBytes: config.edgeCacheBytes,
      now,
      logger,
    });
    closers.push(() => local.platform.close());

    const services = createServices({
      store,
      platform: local.platform,
      dns: new DnsResolver({ server: config.dnsResolver, timeoutMs: config.dnsTimeoutMs }),
      clock,
      config: serviceConfig(config, Number(new URL(edge.url).port)),
    });
    const limiter = (limit: number, windowSeconds: number) =>
      new RateLimiter({ limit, windowSeconds }, clock);
    const apiApp = createApiApp({
      services,
      logger,
      corsOrigin: config.corsOrigin,
      maxBodyBytes: config.maxBodyBytes,
      bodyBudget: {
        maxBytes: config.bodyBytesInFlight,
        maxBytesPerAddress: config.bodyBytesPerAddress,
      },
      createLimits: {
        perAddress: limiter(config.createLimitPerAddress, config.createLimitWindowSeconds),
        perFingerprint: limiter(config.createLimitPerFingerprint, config.createLimitWindowSeconds),
      },
      prepareLimits: {
        perAddress: limiter(config.prepareLimitPerAddress, config.prepareLimitWindowSeconds),
        perProject: limiter(config.prepareLimitPerProject, config.prepareLimitWindowSeconds),
      },
      tlsAskLimit: limiter(config.tlsAskLimitPerAddress, config.tlsAskLimitWindowSeconds),
      clientAddress: (c) => clientAddress(c, config.trustProxy),
      publicUrl: () => (config.apiPublicUrl ?? api.url).replace(/\/$/, ""),
    });
    api.handle(getRequestListener(apiApp.fetch));
    upload.handle(local.uploadListener);
    edge.handle(local.edgeListener);
    // What the HTTP parser refuses (a 20 KB URL, a malformed request) gets a plain-text answer too.
    edge.server.on("clientError", answerClientError);
    const sweeper = startSweeper(services, config.sweepIntervalSeconds, logger);

    return {
      urls: { api: api.url, upload: upload.url, edge: edge.url },
      config,
      services,
      platform: local.platform,
      async close() {
        sweeper.stop();
        await closeAll();
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** The settings the domain operations need, from the server's configuration. */
function serviceConfig(config: ServerConfig, edgePort: number): ServiceConfig {
  return {
    sites: {
      scheme: config.publicScheme,
      publicPort: config.publicEdgePort ?? edgePort,
      sitesDomain: config.sitesDomain,
      cnameTarget: config.cnameTarget,
    },
    deployTtlSeconds: config.deployTtlSeconds,
    projectTtlSeconds: config.projectTtlSeconds,
    projectPurgeGraceSeconds: config.projectPurgeGraceSeconds,
    domainQuarantineSeconds: config.domainQuarantineDays * 86_400,
    retention: { revisionsKept: config.revisionsKept, minAgeSeconds: config.revisionMinAgeDays * 86_400 },
    domainPendingSeconds: config.domainPendingDays * 86_400,
    domainCheckIntervalSeconds: config.domainCheckIntervalSeconds,
    limits: { maxAssets: config.maxAssets, maxAssetBytes: config.maxAssetBytes },
  };
}
