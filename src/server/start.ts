import { getRequestListener } from "@hono/node-server";
import { type Logger, pino } from "pino";
import { answerClientError } from "../edge/index.js";
import { type Clock, systemClock } from "../core/clock.js";
import { createServices, type ServiceConfig, type Services } from "../core/operations/services.js";
import type { SelfHostedPlatform } from "../platform/selfhost/index.js";
import { ConfigError, loadConfig, type ServerConfig } from "./config.js";
import { Metrics, type Role } from "../shared/observability/metrics.js";
import { apiListener } from "./api-listener.js";
import { observeNodeRequests } from "../shared/observability/request-metrics.js";
import { createOpsApp } from "./ops-app.js";
import { ALL_ROLES, rolesOnCloudflare } from "./roles.js";
import { listen } from "./listeners.js";
import { openMetadataStore } from "./metadata-store.js";
import { connectionBudget } from "./connection-budget.js";
import { openPlatformParts } from "./platform-parts.js";
import { startSweeper } from "./sweeper.js";
import { startContentExpiry } from "./content-expiry.js";
import { DnsResolver } from "../shared/dns-resolver.js";
import { prettyDestination } from "../shared/observability/pretty-log.js";
import { OutageLog } from "../shared/observability/outage-log.js";

/** A running process: the URLs of the listeners its roles run, its operator listener, and `close`. */
export interface RunningProcess {
  urls: Partial<Record<Role, string>> & { ops: string };
  config: ServerConfig;
  services: Services;
  /** The built-in platform; absent with Cloudflare. */
  platform?: SelfHostedPlatform;
  metrics: Metrics;
  close(): Promise<void>;
}

/** A process running every role: what `npm start` runs, and what most tests start. */
export interface RunningServer extends RunningProcess {
  urls: Record<Role, string> & { ops: string };
  platform: SelfHostedPlatform;
}

/**
 * Starts the API, upload and edge listeners on one data directory. The binary calls it with the
 * environment's settings; tests call it with overrides (ports 0, a temporary DATA_DIR).
 */
export async function startServer(
  overrides: Partial<ServerConfig> & { logger?: Logger; clock?: Clock } = {},
): Promise<RunningServer> {
  if (overrides.cloudflare) throw new ConfigError("startServer runs the built-in platform; use startProcess");
  const running = await startProcess({ ...overrides, roles: [...ALL_ROLES] });
  const { api, upload, edge, ops } = running.urls;
  return { ...running, urls: { api: api!, upload: upload!, edge: edge!, ops }, platform: running.platform! };
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
  const logger = givenLogger ?? processLogger(config.logLevel);
  const now = () => clock.now();
  const roles = new Set(config.roles);
  const notHere = config.cloudflare ? rolesOnCloudflare(config.roles) : undefined;
  if (notHere !== undefined) throw new ConfigError(`ROLES: ${notHere}`);

  const listeners = await openListeners(config, logger);
  const { api, upload, edge, ops } = listeners;
  // Closed in this order: listeners first (requests in flight finish), then what they use.
  const closers: (() => Promise<unknown>)[] = [
    () => Promise.all(Object.values(listeners).map((l) => l.close())),
  ];
  const closeAll = async () => {
    for (const close of closers) await close();
  };
  try {
    const outages = new OutageLog(logger);
    closers.push(async () => outages.flush());
    const budget = connectionBudget(config.databaseMaxConnections, config.roles);
    const metadata = await openMetadataStore(config, budget, now);
    const { store } = metadata;
    closers.push(() => metadata.close());
    const metrics = new Metrics(config.roles.join(","));
    const parts = await openPlatformParts(config, {
      uploadUrl: upload?.url,
      now,
      logger,
      metrics,
      budget,
      outages,
    });
    closers.push(() => parts.close());
    const { platform, local } = parts;
    metrics.addSources({
      edgeCache: local && roles.has("edge") ? () => local.edgeListener.cacheStats() : undefined,
      content: local && (() => local.platform.contentStats()),
    });

    // Without the edge role only the API needs it, and loadConfig makes an API process name it;
    // Cloudflare's sites answer on the scheme's own port.
    const edgePort = config.publicEdgePort ?? (edge ? Number(new URL(edge.url).port) : undefined);
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
          outages,
          ...(metadata.sharedLimiter === undefined ? {} : { sharedLimiter: metadata.sharedLimiter }),
        }),
      );
    // With Cloudflare, loadConfig lets a process run the api role alone: no local listener is open.
    if (upload && local) upload.handle(local.uploadListener);
    if (edge && local) {
      edge.handle(observeNodeRequests(metrics, "edge", "site", local.edgeListener));
      // What the HTTP parser refuses (a 20 KB URL, a malformed request) gets a plain-text answer too.
      edge.server.on("clientError", answerClientError);
    }
    ops.handle(getRequestListener(createOpsApp({ services, metrics }).fetch));
    // The API's processes sweep: the sweep is the domain's (expiry, purges, domain checks).
    const sweeper = roles.has("api")
      ? startSweeper(services, config.sweepIntervalSeconds, logger, metrics)
      : { stop() {} };
    // Every process may keep copies of packs (an edge most of all); each lets go of its own.
    const contentExpiry = local
      ? startContentExpiry(local.platform, config.sweepIntervalSeconds, logger)
      : { stop() {} };

    return {
      urls: {
        ...(api && { api: api.url }),
        ...(upload && { upload: upload.url }),
        ...(edge && { edge: edge.url }),
        ops: ops.url,
      },
      config,
      services,
      ...(local && { platform: local.platform }),
      metrics,
      async close() {
        sweeper.stop();
        contentExpiry.stop();
        await closeAll();
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** The process's logger: JSON lines (for collectors), or readable lines when stdout is a terminal. */
function processLogger(level: string): Logger {
  return process.stdout.isTTY ? pino({ level }, prettyDestination(process.stdout)) : pino({ level });
}

/** Opens the listeners of the process's roles, and its operator listener. */
async function openListeners(config: ServerConfig, logger: Logger) {
  const roles = new Set(config.roles);
  const open = (port: number, requireHostHeader = true) =>
    listen(config.host, port, { timeouts: config.timeouts, requireHostHeader, logger });
  const [api, upload, edge, ops] = await Promise.all([
    roles.has("api") ? open(config.port) : undefined,
    roles.has("upload") ? open(config.uploadPort) : undefined,
    // The edge answers a request without Host itself (404), rather than node's bare 400.
    roles.has("edge") ? open(config.edgePort, false) : undefined,
    listen(config.metricsHost, config.metricsPort, { timeouts: config.timeouts, logger }),
  ]);
  return { ...(api && { api }), ...(upload && { upload }), ...(edge && { edge }), ops: ops! };
}

/** The settings the domain operations need, from the server's configuration. */
function serviceConfig(config: ServerConfig, edgePort: number | undefined): ServiceConfig {
  return {
    sites: {
      scheme: config.publicScheme,
      publicPort: edgePort,
      sitesDomain: config.sitesDomain,
      cnameTarget: config.cnameTarget,
    },
    deployTtlSeconds: config.deployTtlSeconds,
    projectTtlSeconds: config.projectTtlSeconds,
    projectPurgeGraceSeconds: config.projectPurgeGraceSeconds,
    domainQuarantineSeconds: config.domainQuarantineDays * 86_400,
    retention: {
      revisionsKept: config.revisionsKept,
      minAgeSeconds: config.revisionMinAgeDays * 86_400,
      revisionsMax: config.revisionsMax,
    },
    domainPendingSeconds: config.domainPendingDays * 86_400,
    domainCheckIntervalSeconds: config.domainCheckIntervalSeconds,
    limits: {
      maxAssets: config.maxAssets,
      maxAssetBytes: config.maxAssetBytes,
      maxManifestBytes: config.maxManifestBytes,
    },
    // Cloudflare's platform keeps no quotas of its own (its account's limits apply).
    quotas: config.cloudflare
      ? { projectBytes: 0, pendingBytes: 0, clientBytes: 0 }
      : {
          projectBytes: config.projectQuotaBytes,
          pendingBytes: config.pendingQuotaBytes,
          clientBytes: config.clientQuotaBytes,
        },
  };
}
