import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import type { Context } from "hono";
import { type Logger, pino } from "pino";
import { createApiApp } from "../api/app.js";
import { generateAccountId } from "../core/ids.js";
import { sweepExpired } from "../core/operations/index.js";
import { RateLimiter } from "../core/rate-limiter.js";
import { createServices, type Services } from "../core/services.js";
import { createEdgeHandler } from "../edge/index.js";
import { BlobStore } from "../platform/local/blob-store.js";
import { openPlatformDatabase, settingOrCreate } from "../platform/local/database.js";
import { removeOrphanFiles } from "../platform/local/garbage-collector.js";
import { LocalPlatform } from "../platform/local/local-platform.js";
import { openSqliteStore } from "../store/index.js";
import { UploadTokens } from "../platform/local/tokens.js";
import { createUploadApp } from "../upload/upload-app.js";
import { UploadService } from "../upload/upload-service.js";
import { UploadSessions } from "../platform/local/upload-sessions.js";
import { loadConfig, type ServerConfig } from "./config.js";
import { listen } from "./listeners.js";

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
  overrides: Partial<ServerConfig> & { logger?: Logger } = {},
): Promise<RunningServer> {
  const { logger: givenLogger, ...settings } = overrides;
  const config: ServerConfig = { ...loadConfig({}), ...settings };
  const logger = givenLogger ?? pino({ level: config.logLevel });
  const now = () => Date.now();

  const store = await openSqliteStore(join(config.dataDir, "metadata.sqlite"));
  const platformDir = join(config.dataDir, "platform");
  const db = openPlatformDatabase(platformDir);
  const blobs = new BlobStore(platformDir);
  const orphans = removeOrphanFiles(db, blobs);
  if (orphans > 0) logger.info({ orphans }, "removed blob files no row named");
  const accountId = settingOrCreate(db, "account_id", generateAccountId);
  const secret =
    config.uploadJwtSecret ?? settingOrCreate(db, "upload_jwt_secret", () => randomBytes(32).toString("hex"));

  const [api, upload, edge] = await Promise.all([
    listen(config.host, config.port, { timeouts: config.timeouts }),
    listen(config.host, config.uploadPort, { timeouts: config.timeouts }),
    // The edge answers a request without Host itself (404), rather than node's bare 400.
    listen(config.host, config.edgePort, { timeouts: config.timeouts, requireHostHeader: false }),
  ]);
  const uploadBase = (config.uploadPublicUrl ?? upload.url).replace(/\/$/, "");
  const apiBase = (config.apiPublicUrl ?? api.url).replace(/\/$/, "");

  const sessions = new UploadSessions(db);
  const tokens = new UploadTokens(secret);
  const platform = new LocalPlatform({
    db,
    blobs,
    sessions,
    tokens,
    accountId,
    uploadUrl: `${uploadBase}/accounts/${accountId}/workers/assets/upload?base64=true`,
    bucketLimits: { maxBytes: config.bucketMaxBytes, maxFiles: config.bucketMaxFiles },
    now,
  });
  const services = createServices({
    store,
    platform,
    config: {
      sites: {
        scheme: config.publicScheme,
        publicPort: config.publicEdgePort ?? Number(new URL(edge.url).port),
        sitesDomain: config.sitesDomain,
        cnameTarget: config.cnameTarget,
      },
      deployTtlSeconds: config.deployTtlSeconds,
      projectTtlSeconds: config.projectTtlSeconds,
      projectPurgeGraceSeconds: config.projectPurgeGraceSeconds,
      limits: { maxAssets: config.maxAssets, maxAssetBytes: config.maxAssetBytes },
    },
  });
  const window = config.createLimitWindowSeconds;
  const apiApp = createApiApp({
    services,
    logger,
    corsOrigin: config.corsOrigin,
    maxBodyBytes: config.maxBodyBytes,
    createLimits: {
      perAddress: new RateLimiter({ limit: config.createLimitPerAddress, windowSeconds: window }),
      perFingerprint: new RateLimiter({ limit: config.createLimitPerFingerprint, windowSeconds: window }),
    },
    clientAddress: (c) => clientAddress(c, config.trustProxy),
    publicUrl: () => apiBase,
  });
  const uploadApp = createUploadApp({
    service: new UploadService({
      accountId,
      sessions,
      blobs,
      tokens,
      maxAssetBytes: config.maxAssetBytes,
      // A full bucket plus room for the multipart framing of up to BUCKET_MAX_FILES parts.
      maxRequestBytes: config.bucketMaxBytes + config.bucketMaxFiles * 512 + 1024 * 1024,
      now,
    }),
    logger,
  });
  api.handle(getRequestListener(apiApp.fetch));
  upload.handle(getRequestListener(uploadApp.fetch));
  edge.handle(
    createEdgeHandler({ db, blobs, sitesDomain: config.sitesDomain, cacheBytes: config.edgeCacheBytes }),
  );

  let sweeping = false;
  const sweeper = setInterval(() => {
    // A sweep that outlasts the interval is not joined by another.
    if (sweeping) return;
    sweeping = true;
    sweepExpired(services)
      .then(
        (result) => logger.debug(result, "sweep"),
        (error: unknown) => logger.error({ err: error }, "sweep failed"),
      )
      .finally(() => {
        sweeping = false;
      });
  }, config.sweepIntervalSeconds * 1000);
  sweeper.unref();

  return {
    urls: { api: api.url, upload: upload.url, edge: edge.url },
    config,
    services,
    platform,
    async close() {
      clearInterval(sweeper);
      await Promise.all([api.close(), upload.close(), edge.close()]);
      await store.close();
      await platform.close();
    },
  };
}

function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    // The last entry is the one our own proxy appended; earlier ones are whatever the client sent.
    const forwarded = c.req.header("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? "unknown";
}
