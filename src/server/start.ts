import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { type Logger, pino } from "pino";
import { answerClientError } from "../edge/index.js";
import { type Clock, systemClock } from "../core/clock.js";
import { createServices, type ServiceConfig, type Services } from "../core/operations/services.js";
import type { LocalPlatform } from "../platform/local/local-platform.js";
import { loadConfig, type ServerConfig } from "./config.js";
import { Metrics, type Role } from "../shared/metrics.js";
import { apiListener } from "./api-listener.js";
import { observeNodeRequests } from "../shared/request-metrics.js";
import { createOpsApp } from "./ops-app.js";
import { ALL_ROLES } from "./roles.js";
import { listen } from "./listeners.js";
import { openLocalPlatform } from "./local-platform.js";
import { openMetadataStore, platformPostgres } from "./metadata-store.js";
import { openCloudflarePlatform } from "./cloudflare-platform.js";
import { startSweeper } from "./sweeper.js";
import { DnsResolver } from "../shared/dns-resolver.js";

/** A running process: the URLs of the listeners its roles run, its operator listener, and `close`. */
export interface RunningProcess {
  urls: Partial<Record<Role, string>> & { ops: string };
  config: ServerConfig;
  services: Services;
  platform: LocalPlatform;
  metrics: Metrics;
  close(): Promise<void>;
}

/** A process running every role: what `npm start` runs, and what most tests start. */
export interface RunningServer extends RunningProcess {
  urls: Record<Role, string> & { ops: string };
}

/**
 * Starts the API, upload and edge listeners on one data directory. The binary calls it with the
 * environment's settings; tests call it with overrides (ports 0, a temporary DATA_DIR).
 */
export async function startServer(
  overrides: Partial<ServerConfig> & { logger?: Logger; clock?: Clock } = {},
): Promise<RunningServer> {
  const running = await startProcess({ ...overrides, roles: [...ALL_ROLES] });
  const { api, upload, edge, ops } = running.urls;
  return { ...running, urls: { api: api!, upload: upload!, edge: edge!, ops } };
}

/**
 * Starts the listeners of the roles `config.roles` names (ROLES) and the operator listener, on one
 * state: every process opens the store and the platform, whatever it serves.
 */
export async function startProcess(
  overrides: Partial<ServerConfig> & { logger?: Logger; clock?: Clock } = {},
): Promise<RunningProcess> {
  const { logger: givenLogger, clock = systemClock, ...settings } = overrides;
  const config: ServerConfig = { ...loadConfig({}), ...settings };
  const logger = givenLogger ?? pino({ level: config.logLevel });
  const now = () => clock.now();
  const roles = new Set(config.roles);

  const listeners = await openListeners(config);
  const { api, upload, edge, ops } = listeners;
  // Closed in this order: listeners first (requests in flight finish), then what they use.
  const closers: (() => Promise<unknown>)[] = [
    () => Promise.all(Object.values(listeners).map((l) => l.close())),
  ];
  const closeAll = async () => {
    for (const close of closers) await close();
  };
  try {
    const metadata = await openMetadataStore(config);
    const { store } = metadata;
    closers.push(() => metadata.close());
    const metrics = new Metrics(config.roles.join(","));
    // Only the API hands out the upload URL, and loadConfig makes sure an API process knows it.
    const uploadBaseUrl = config.uploadPublicUrl ?? upload?.url ?? "";
    const local = await openLocalPlatform(join(config.dataDir, "platform"), {
      uploadBaseUrl: uploadBaseUrl.replace(/\/$/, ""),
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
      objectStore: config.objectStore,
      now,
      logger,
      metrics,
      postgres: platformPostgres(config),
    });
    closers.push(() => local.platform.close());
    metrics.addSources({
      edgeCache: roles.has("edge") ? () => local.edgeListener.cacheStats() : undefined,
      content: () => local.platform.contentStats(),
    });
    const platform = config.cloudflare
      ? openCloudflarePlatform(config.cloudflare, config, now)
      : local.platform;

    // Without the edge role only the API needs it, and loadConfig makes an API process name it.
    const edgePort = config.publicEdgePort ?? (edge ? Number(new URL(edge.url).port) : 0);
    const services = createServices({
      store,
      platform,
      dns: new DnsResolver({ server: config.dnsResolver, timeoutMs: config.dnsTimeoutMs }),
      clock,
      ...(metadata.locks === undefined ? {} : { locks: metadata.locks }),
      config: serviceConfig(config, edgePort),
    });
    if (api)
      api.handle(
        apiListener({
          config,
          services,
          logger,
          metrics,
          clock,
          apiUrl: api.url,
          ...(metadata.sharedLimiter === undefined ? {} : { sharedLimiter: metadata.sharedLimiter }),
        }),
      );
    upload?.handle(local.uploadListener);
    if (edge) {
      edge.handle(observeNodeRequests(metrics, "edge", "site", local.edgeListener));
      // What the HTTP parser refuses (a 20 KB URL, a malformed request) gets a plain-text answer too.
      edge.server.on("clientError", answerClientError);
    }
    ops.handle(getRequestListener(createOpsApp({ services, metrics }).fetch));
    // The API's processes sweep: the sweep is the domain's (expiry, purges, domain checks).
    const sweeper = roles.has("api")
      ? startSweeper(services, config.sweepIntervalSeconds, logger, metrics)
      : { stop() {} };

    return {
      urls: { api: api?.url, upload: upload?.url, edge: edge?.url, ops: ops.url },
      config,
      services,
      platform: local.platform,
      metrics,
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

/** Opens the listeners of the process's roles, and its operator listener. */
async function openListeners(config: ServerConfig) {
  const roles = new Set(config.roles);
  const open = (port: number, requireHostHeader = true) =>
    listen(config.host, port, { timeouts: config.timeouts, requireHostHeader });
  const [api, upload, edge, ops] = await Promise.all([
    roles.has("api") ? open(config.port) : undefined,
    roles.has("upload") ? open(config.uploadPort) : undefined,
    // The edge answers a request without Host itself (404), rather than node's bare 400.
    roles.has("edge") ? open(config.edgePort, false) : undefined,
    listen(config.metricsHost, config.metricsPort, { timeouts: config.timeouts }),
  ]);
  return { ...(api && { api }), ...(upload && { upload }), ...(edge && { edge }), ops: ops! };
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
