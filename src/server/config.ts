import { resolve } from "node:path";
import { z } from "zod";
import { defaultHashThreads } from "../upload/part-hash-pool.js";
import { objectStoreSettings } from "./object-store-config.js";
import { ALL_ROLES, parseRoles, rolesOnCloudflare } from "./roles.js";
import { type CloudflareSettings, cloudflareSettings } from "../platform/cloudflare/env-settings.js";
import { ENV } from "./config-env.js";

/** The server's settings, resolved. */
export type ServerConfig = ReturnType<typeof toConfig> & {
  /** Cloudflare as the platform (PLATFORM=cloudflare); absent with the built-in one. */
  cloudflare?: CloudflareSettings;
};

/** Reads the settings from `env`; throws ConfigError naming the variable that is wrong. */
export function loadConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const result = ENV.safeParse(present);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ConfigError(`${String(issue.path[0])}: ${issue.message}`);
  }
  const cloudflare = cloudflareSettings(result.data);
  if (typeof cloudflare === "string") throw new ConfigError(cloudflare);
  return { ...toConfig(result.data, cloudflare !== undefined), cloudflare };
}

/** A setting in the environment is malformed. */
export class ConfigError extends Error {}

function toConfig(env: z.infer<typeof ENV>, onCloudflare: boolean) {
  const roles = parseRoles(env.ROLES ?? (onCloudflare ? "api" : ALL_ROLES.join(",")));
  if (typeof roles === "string") throw new ConfigError(`ROLES: ${roles}`);
  const notHere = onCloudflare ? rolesOnCloudflare(roles) : undefined;
  if (notHere !== undefined) throw new ConfigError(`ROLES: ${notHere}`);
  // The API tells clients where to upload and where sites answer: without those listeners in this
  // process, it must be told their public addresses (Cloudflare's it knows).
  if (!onCloudflare && roles.includes("api") && !roles.includes("upload") && !env.UPLOAD_PUBLIC_URL) {
    throw new ConfigError("UPLOAD_PUBLIC_URL: required when ROLES has api but not upload");
  }
  if (
    !onCloudflare &&
    roles.includes("api") &&
    !roles.includes("edge") &&
    env.PUBLIC_EDGE_PORT === undefined
  ) {
    throw new ConfigError("PUBLIC_EDGE_PORT: required when ROLES has api but not edge");
  }
  const objectStore = objectStoreSettings(env);
  if (typeof objectStore === "string") throw new ConfigError(objectStore);
  return {
    roles,
    objectStore,
    metricsHost: env.METRICS_HOST,
    metricsPort: env.METRICS_PORT,
    host: env.HOST,
    port: env.PORT,
    uploadPort: env.UPLOAD_PORT,
    edgePort: env.EDGE_PORT,
    dataDir: resolve(env.DATA_DIR),
    databaseUrl: env.DATABASE_URL,
    databaseSchema: env.DATABASE_SCHEMA,
    databaseMaxConnections: env.DATABASE_MAX_CONNECTIONS,
    sitesDomain: env.SITES_DOMAIN,
    publicScheme: env.PUBLIC_SCHEME ?? (onCloudflare ? "https" : "http"),
    publicEdgePort: env.PUBLIC_EDGE_PORT,
    cnameTarget: env.CNAME_TARGET ?? `edge.${env.SITES_DOMAIN}`,
    apiPublicUrl: env.API_PUBLIC_URL,
    uploadPublicUrl: env.UPLOAD_PUBLIC_URL,
    corsOrigin: env.CORS_ORIGIN,
    deployTtlSeconds: env.DEPLOY_TTL_SECONDS,
    projectTtlSeconds: env.PROJECT_TTL_SECONDS,
    projectPurgeGraceSeconds: env.PROJECT_PURGE_GRACE_SECONDS,
    domainQuarantineDays: env.DOMAIN_QUARANTINE_DAYS,
    revisionsKept: env.REVISIONS_KEPT,
    // Never fewer than REVISIONS_KEPT: those are kept whatever their age.
    revisionsMax: Math.max(env.REVISIONS_MAX, env.REVISIONS_KEPT),
    revisionMinAgeDays: env.REVISION_MIN_AGE_DAYS,
    domainPendingDays: env.DOMAIN_PENDING_DAYS,
    domainCheckIntervalSeconds: env.DOMAIN_CHECK_INTERVAL_SECONDS,
    dnsResolver: env.DNS_RESOLVER,
    dnsTimeoutMs: env.DNS_TIMEOUT_MS,
    tlsAskLimitPerAddress: env.TLS_ASK_LIMIT_PER_ADDRESS,
    tlsAskLimitWindowSeconds: env.TLS_ASK_LIMIT_WINDOW_SECONDS,
    tlsAskUnknownLimit: env.TLS_ASK_UNKNOWN_LIMIT,
    tlsAskTrustedAddresses: (env.TLS_ASK_TRUSTED_ADDRESSES ?? "").split(",").filter((a) => a !== ""),
    domainLimitPerProject: env.DOMAIN_LIMIT_PER_PROJECT,
    domainLimitPerAddress: env.DOMAIN_LIMIT_PER_ADDRESS,
    domainLimitWindowSeconds: env.DOMAIN_LIMIT_WINDOW_SECONDS,
    sweepIntervalSeconds: env.SWEEP_INTERVAL_SECONDS,
    maxAssets: env.MAX_ASSETS,
    maxAssetBytes: env.MAX_ASSET_BYTES,
    maxManifestBytes: env.MAX_MANIFEST_BYTES,
    maxBodyBytes: env.MAX_BODY_BYTES,
    bucketMaxBytes: env.BUCKET_MAX_BYTES,
    bucketMaxFiles: env.BUCKET_MAX_FILES,
    uploadHashThreads: env.UPLOAD_HASH_THREADS ?? defaultHashThreads(),
    createLimitPerAddress: env.CREATE_LIMIT_PER_ADDRESS,
    createLimitPerFingerprint: env.CREATE_LIMIT_PER_FINGERPRINT,
    createLimitWindowSeconds: env.CREATE_LIMIT_WINDOW_SECONDS,
    prepareLimitPerProject: env.PREPARE_LIMIT_PER_PROJECT,
    prepareLimitPerAddress: env.PREPARE_LIMIT_PER_ADDRESS,
    prepareLimitWindowSeconds: env.PREPARE_LIMIT_WINDOW_SECONDS,
    rateLimitKeys: env.RATE_LIMIT_KEYS,
    bodyBytesInFlight: env.BODY_BYTES_IN_FLIGHT,
    bodyBytesPerAddress: env.BODY_BYTES_PER_ADDRESS,
    bodyPace: {
      minBytesPerSecond: env.BODY_MIN_BYTES_PER_SECOND,
      windowMs: env.BODY_RATE_WINDOW_SECONDS * 1000,
    },
    trustProxy: env.TRUST_PROXY,
    projectQuotaBytes: env.PROJECT_QUOTA_BYTES,
    pendingQuotaBytes: env.PENDING_QUOTA_BYTES,
    clientQuotaBytes: env.CLIENT_QUOTA_BYTES,
    clientQuotaWindowSeconds: env.CLIENT_QUOTA_WINDOW_SECONDS,
    minFreeBytes: env.MIN_FREE_BYTES,
    edgeCacheBytes: env.EDGE_CACHE_BYTES,
    timeouts: {
      headersMs: env.HEADERS_TIMEOUT_SECONDS * 1000,
      requestMs: env.REQUEST_TIMEOUT_SECONDS * 1000,
      keepAliveMs: env.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    },
    uploadJwtSecret: env.UPLOAD_JWT_SECRET,
    logLevel: env.LOG_LEVEL,
  };
}
