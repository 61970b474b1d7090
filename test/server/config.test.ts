import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultBlake3Backend } from "../../src/core/blake3.js";
import { ConfigError, loadConfig } from "../../src/server/config.js";

const MIB = 1024 * 1024;

/** The error loadConfig throws for `env`, or a failure when it throws none. */
function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("configuration: the environment read into settings", () => {
  it("loadConfig: with nothing set, the embedded defaults the README's table gives", () => {
    expect(loadConfig({})).toEqual({
      roles: ["api", "upload", "edge"],
      objectStore: undefined,
      cloudflare: undefined,
      metricsHost: "127.0.0.1",
      metricsPort: 9464,
      host: "127.0.0.1",
      port: 8787,
      uploadPort: 8788,
      edgePort: 8080,
      dataDir: resolve("./data"),
      databaseUrl: undefined,
      databaseSchema: undefined,
      databaseMaxConnections: 10,
      sitesDomain: "localhost",
      publicScheme: "http",
      publicEdgePort: undefined,
      cnameTarget: "edge.localhost",
      apiPublicUrl: undefined,
      uploadPublicUrl: undefined,
      corsOrigin: "*",
      deployTtlSeconds: 3600,
      projectTtlSeconds: 2_592_000,
      projectPurgeGraceSeconds: 604_800,
      domainQuarantineDays: 30,
      revisionsKept: 50,
      revisionsMax: 100,
      revisionMinAgeDays: 30,
      domainPendingDays: 7,
      domainCheckIntervalSeconds: 300,
      dnsResolver: undefined,
      dnsTimeoutMs: 2000,
      tlsAskLimitPerAddress: 600,
      tlsAskLimitWindowSeconds: 60,
      tlsAskUnknownLimit: 6_000,
      tlsAskTrustedAddresses: [],
      domainLimitPerProject: 30,
      domainLimitPerAddress: 60,
      domainLimitWindowSeconds: 3600,
      sweepIntervalSeconds: 60,
      maxAssets: 100_000,
      maxAssetBytes: 25 * MIB,
      maxManifestBytes: 16 * MIB,
      maxBodyBytes: 32 * MIB,
      bucketMaxBytes: 50 * MIB,
      bucketMaxFiles: 2000,
      // None with native BLAKE3 (installed here); with WebAssembly, the cores but one, at most two.
      uploadHashThreads:
        defaultBlake3Backend() === "native" ? 0 : Math.max(0, Math.min(2, availableParallelism() - 1)),
      createLimitPerAddress: 30,
      createLimitPerFingerprint: 10,
      createLimitWindowSeconds: 60,
      prepareLimitPerProject: 60,
      prepareLimitPerAddress: 120,
      prepareLimitWindowSeconds: 60,
      rateLimitKeys: 100_000,
      bodyBytesInFlight: 64 * MIB,
      bodyBytesPerAddress: 32 * MIB,
      bodyPace: { minBytesPerSecond: 16 * 1024, windowMs: 10_000 },
      trustProxy: false,
      projectQuotaBytes: 1024 * MIB,
      pendingQuotaBytes: 2048 * MIB,
      clientQuotaBytes: 5120 * MIB,
      clientQuotaWindowSeconds: 2_592_000,
      minFreeBytes: 1024 * MIB,
      edgeCacheBytes: 64 * MIB,
      timeouts: { headersMs: 30_000, requestMs: 300_000, keepAliveMs: 5_000 },
      uploadJwtSecret: undefined,
      logLevel: "info",
    });
  });

  it("loadConfig: each variable set lands in its own setting, numbers read from text", () => {
    const config = loadConfig({
      HOST: "0.0.0.0",
      PORT: "1001",
      UPLOAD_PORT: "1002",
      EDGE_PORT: "1003",
      METRICS_HOST: "10.0.0.1",
      METRICS_PORT: "1004",
      DATA_DIR: "/srv/deploy",
      DATABASE_URL: "postgres://db.internal/deploy",
      DATABASE_SCHEMA: "tenant_a",
      DATABASE_MAX_CONNECTIONS: "24",
      SITES_DOMAIN: "sites.example",
      PUBLIC_SCHEME: "https",
      PUBLIC_EDGE_PORT: "443",
      CNAME_TARGET: "cdn.example.net",
      API_PUBLIC_URL: "https://api.example/",
      UPLOAD_PUBLIC_URL: "https://upload.example/",
      CORS_ORIGIN: "https://app.example",
      DEPLOY_TTL_SECONDS: "11",
      PROJECT_TTL_SECONDS: "12",
      PROJECT_PURGE_GRACE_SECONDS: "13",
      DOMAIN_QUARANTINE_DAYS: "0",
      REVISIONS_KEPT: "3",
      REVISIONS_MAX: "4",
      REVISION_MIN_AGE_DAYS: "2",
      DOMAIN_PENDING_DAYS: "1.5",
      DOMAIN_CHECK_INTERVAL_SECONDS: "14",
      DNS_RESOLVER: "127.0.0.1:5353",
      DNS_TIMEOUT_MS: "15",
      TLS_ASK_LIMIT_PER_ADDRESS: "16",
      TLS_ASK_LIMIT_WINDOW_SECONDS: "17",
      TLS_ASK_UNKNOWN_LIMIT: "36",
      TLS_ASK_TRUSTED_ADDRESSES: "10.0.0.2,::1",
      DOMAIN_LIMIT_PER_PROJECT: "37",
      DOMAIN_LIMIT_PER_ADDRESS: "38",
      DOMAIN_LIMIT_WINDOW_SECONDS: "39",
      SWEEP_INTERVAL_SECONDS: "18",
      MAX_ASSETS: "19",
      MAX_ASSET_BYTES: "20",
      MAX_BODY_BYTES: "21",
      BUCKET_MAX_BYTES: "22",
      BUCKET_MAX_FILES: "23",
      UPLOAD_HASH_THREADS: "0",
      CREATE_LIMIT_PER_ADDRESS: "24",
      CREATE_LIMIT_PER_FINGERPRINT: "25",
      CREATE_LIMIT_WINDOW_SECONDS: "26",
      PREPARE_LIMIT_PER_PROJECT: "27",
      PREPARE_LIMIT_PER_ADDRESS: "28",
      PREPARE_LIMIT_WINDOW_SECONDS: "29",
      RATE_LIMIT_KEYS: "36",
      BODY_BYTES_IN_FLIGHT: "30",
      BODY_BYTES_PER_ADDRESS: "31",
      BODY_MIN_BYTES_PER_SECOND: "37",
      BODY_RATE_WINDOW_SECONDS: "0.5",
      TRUST_PROXY: "1",
      PROJECT_QUOTA_BYTES: "32",
      PENDING_QUOTA_BYTES: "33",
      CLIENT_QUOTA_BYTES: "36",
      CLIENT_QUOTA_WINDOW_SECONDS: "37",
      MIN_FREE_BYTES: "34",
      EDGE_CACHE_BYTES: "35",
      HEADERS_TIMEOUT_SECONDS: "2",
      REQUEST_TIMEOUT_SECONDS: "0.5",
      KEEP_ALIVE_TIMEOUT_SECONDS: "3",
      UPLOAD_JWT_SECRET: "s".repeat(32),
      LOG_LEVEL: "debug",
    });
    expect(config).toMatchObject({
      host: "0.0.0.0",
      port: 1001,
      uploadPort: 1002,
      edgePort: 1003,
      metricsHost: "10.0.0.1",
      metricsPort: 1004,
      dataDir: "/srv/deploy",
      databaseUrl: "postgres://db.internal/deploy",
      databaseSchema: "tenant_a",
      databaseMaxConnections: 24,
      sitesDomain: "sites.example",
      publicScheme: "https",
      publicEdgePort: 443,
      cnameTarget: "cdn.example.net",
      apiPublicUrl: "https://api.example/",
      uploadPublicUrl: "https://upload.example/",
      corsOrigin: "https://app.example",
      deployTtlSeconds: 11,
      projectTtlSeconds: 12,
      projectPurgeGraceSeconds: 13,
      domainQuarantineDays: 0,
      revisionsKept: 3,
      revisionsMax: 4,
      revisionMinAgeDays: 2,
      domainPendingDays: 1.5,
      domainCheckIntervalSeconds: 14,
      dnsResolver: "127.0.0.1:5353",
      dnsTimeoutMs: 15,
      tlsAskLimitPerAddress: 16,
      tlsAskLimitWindowSeconds: 17,
      tlsAskUnknownLimit: 36,
      tlsAskTrustedAddresses: ["10.0.0.2", "::1"],
      domainLimitPerProject: 37,
      domainLimitPerAddress: 38,
      domainLimitWindowSeconds: 39,
      sweepIntervalSeconds: 18,
      maxAssets: 19,
      maxAssetBytes: 20,
      maxBodyBytes: 21,
      bucketMaxBytes: 22,
      bucketMaxFiles: 23,
      uploadHashThreads: 0,
      createLimitPerAddress: 24,
      createLimitPerFingerprint: 25,
      createLimitWindowSeconds: 26,
      prepareLimitPerProject: 27,
      prepareLimitPerAddress: 28,
      prepareLimitWindowSeconds: 29,
      rateLimitKeys: 36,
      bodyBytesInFlight: 30,
      bodyBytesPerAddress: 31,
      bodyPace: { minBytesPerSecond: 37, windowMs: 500 },
      trustProxy: true,
      projectQuotaBytes: 32,
      pendingQuotaBytes: 33,
      clientQuotaBytes: 36,
      clientQuotaWindowSeconds: 37,
      minFreeBytes: 34,
      edgeCacheBytes: 35,
      timeouts: { headersMs: 2000, requestMs: 500, keepAliveMs: 3000 },
      uploadJwtSecret: "s".repeat(32),
      logLevel: "debug",
    });
  });

  it("loadConfig: REVISIONS_MAX below REVISIONS_KEPT is taken as REVISIONS_KEPT (those are kept whatever their age)", () => {
    expect(loadConfig({ REVISIONS_KEPT: "10", REVISIONS_MAX: "4" }).revisionsMax).toBe(10);
  });

  it("loadConfig: a variable set to the empty string counts as unset", () => {
    const config = loadConfig({ PORT: "", SITES_DOMAIN: "", DATABASE_URL: "", ROLES: "" });
    expect(config.port).toBe(8787);
    expect(config.sitesDomain).toBe("localhost");
    expect(config.databaseUrl).toBeUndefined();
    expect(config.roles).toEqual(["api", "upload", "edge"]);
  });

  it("loadConfig: PROJECT_TTL_SECONDS=0 is accepted (projects never expire); a negative one is refused", () => {
    expect(loadConfig({ PROJECT_TTL_SECONDS: "0" }).projectTtlSeconds).toBe(0);
    expect(refusal({ PROJECT_TTL_SECONDS: "-1" }).message).toMatch(/^PROJECT_TTL_SECONDS: /);
  });

  it("loadConfig: SWEEP_INTERVAL_SECONDS beyond what a timer keeps (2,147,483 s) is refused", () => {
    // A timer of a year would fire every millisecond: the interval stops at what a timer keeps.
    expect(refusal({ SWEEP_INTERVAL_SECONDS: "31536000" }).message).toMatch(/^SWEEP_INTERVAL_SECONDS: /);
    expect(loadConfig({ SWEEP_INTERVAL_SECONDS: "2147483" }).sweepIntervalSeconds).toBe(2_147_483);
  });

  it("loadConfig: CNAME_TARGET defaults to edge. under SITES_DOMAIN", () => {
    expect(loadConfig({ SITES_DOMAIN: "sites.example" }).cnameTarget).toBe("edge.sites.example");
  });

  it("loadConfig: a malformed value is refused with a ConfigError naming its variable", () => {
    expect(refusal({ PORT: "65536" }).message).toMatch(/^PORT: /);
    expect(refusal({ UPLOAD_PORT: "-1" }).message).toMatch(/^UPLOAD_PORT: /);
    expect(refusal({ DATABASE_URL: "mysql://db/x" }).message).toBe(
      "DATABASE_URL: must be a postgres:// URL (unset: SQLite in DATA_DIR)",
    );
    expect(refusal({ DATABASE_MAX_CONNECTIONS: "5" }).message).toMatch(/^DATABASE_MAX_CONNECTIONS: /);
    expect(refusal({ REVISIONS_KEPT: "0" }).message).toMatch(/^REVISIONS_KEPT: /);
    expect(refusal({ REVISIONS_MAX: "0" }).message).toMatch(/^REVISIONS_MAX: /);
    expect(refusal({ TRUST_PROXY: "yes" }).message).toMatch(/^TRUST_PROXY: /);
    expect(refusal({ DNS_RESOLVER: "resolver.example:53" }).message).toBe(
      "DNS_RESOLVER: must be host:port, such as 127.0.0.1:53",
    );
    expect(refusal({ UPLOAD_JWT_SECRET: "short" }).message).toMatch(/^UPLOAD_JWT_SECRET: /);
  });

  it("loadConfig: a flag is true for true and 1, false for false and 0", () => {
    for (const [text, value] of [
      ["true", true],
      ["1", true],
      ["false", false],
      ["0", false],
    ] as const) {
      expect(loadConfig({ TRUST_PROXY: text }).trustProxy, text).toBe(value);
    }
  });

  it("loadConfig: ROLES lists the listeners, in their start order, and refuses unknown ones", () => {
    expect(loadConfig({ ROLES: "edge, upload" }).roles).toEqual(["upload", "edge"]);
    expect(refusal({ ROLES: "api,cdn" }).message).toBe(
      'ROLES: unknown role "cdn": the roles are api, upload and edge',
    );
    expect(refusal({ ROLES: " , " }).message).toBe("ROLES: must name at least one of api, upload, edge");
  });

  it("loadConfig: an API without the upload listener must be told the upload service's public URL", () => {
    const edgeHere = { ROLES: "api,edge" };
    expect(refusal(edgeHere).message).toBe("UPLOAD_PUBLIC_URL: required when ROLES has api but not upload");
    const told = loadConfig({ ...edgeHere, UPLOAD_PUBLIC_URL: "https://upload.example" });
    expect(told.roles).toEqual(["api", "edge"]);
  });

  it("loadConfig: an API without the edge listener must be told the sites' public port", () => {
    const uploadHere = { ROLES: "api,upload" };
    expect(refusal(uploadHere).message).toBe("PUBLIC_EDGE_PORT: required when ROLES has api but not edge");
    expect(loadConfig({ ...uploadHere, PUBLIC_EDGE_PORT: "0" }).publicEdgePort).toBe(0);
    // Without the API, neither address is needed.
    expect(loadConfig({ ROLES: "upload" }).roles).toEqual(["upload"]);
  });
});
