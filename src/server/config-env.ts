import { z } from "zod";
import { MIB } from "../core/formats.js";
import { CLOUDFLARE_ENV } from "../platform/cloudflare/env-settings.js";
import { MAX_TIMER_MS } from "../shared/timer-delay.js";
import { MIN_DATABASE_CONNECTIONS } from "./connection-budget.js";

// The server's environment variables as a schema (config.ts resolves them into ServerConfig).

const port = z.coerce.number().int().min(0).max(65535);
const seconds = z.coerce.number().positive();
const count = z.coerce.number().int().min(0);
const flag = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

/**
 * Every setting, with its environment variable and default. The README's configuration table is
 * this list; names of contract §1 are kept exactly.
 */
export const ENV = z.object({
  HOST: z.string().default("127.0.0.1"),
  PORT: port.default(8787),
  UPLOAD_PORT: port.default(8788),
  EDGE_PORT: port.default(8080),
  DATA_DIR: z.string().default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/./i, "must be a postgres:// URL (unset: SQLite in DATA_DIR)")
    .optional(),
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, "must be a lower-case SQL name")
    .optional(),
  // Every PostgreSQL connection of one process together (connection-budget.ts splits them).
  DATABASE_MAX_CONNECTIONS: count.min(MIN_DATABASE_CONNECTIONS).default(10),
  SITES_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+$/)
    .default("localhost"),
  // Default http on the built-in platform (the embedded setup), https on Cloudflare.
  PUBLIC_SCHEME: z.enum(["http", "https"]).optional(),
  PUBLIC_EDGE_PORT: port.optional(),
  CNAME_TARGET: z.string().optional(),
  API_PUBLIC_URL: z.string().url().optional(),
  UPLOAD_PUBLIC_URL: z.string().url().optional(),
  CORS_ORIGIN: z.string().default("*"),
  DEPLOY_TTL_SECONDS: seconds.default(3600),
  // 0: projects never expire (contract §6).
  PROJECT_TTL_SECONDS: z.coerce.number().min(0).default(2_592_000),
  PROJECT_PURGE_GRACE_SECONDS: seconds.default(604_800),
  DOMAIN_QUARANTINE_DAYS: z.coerce.number().min(0).default(30),
  REVISIONS_KEPT: count.min(1).default(50),
  REVISIONS_MAX: count.min(1).default(100),
  REVISION_MIN_AGE_DAYS: z.coerce.number().min(0).default(30),
  DOMAIN_PENDING_DAYS: z.coerce.number().positive().default(7),
  DOMAIN_CHECK_INTERVAL_SECONDS: seconds.default(300),
  DNS_RESOLVER: z
    .string()
    .regex(
      /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(?::\d{1,5})?$/,
      "must be host:port, such as 127.0.0.1:53",
    )
    .optional(),
  DNS_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
  TLS_ASK_LIMIT_PER_ADDRESS: count.default(600),
  TLS_ASK_LIMIT_WINDOW_SECONDS: seconds.default(60),
  TLS_ASK_UNKNOWN_LIMIT: count.default(6_000),
  TLS_ASK_TRUSTED_ADDRESSES: z
    .string()
    .regex(/^[0-9a-fA-F.:]+(,[0-9a-fA-F.:]+)*$/, "must be IP addresses separated by commas")
    .optional(),
  DOMAIN_LIMIT_PER_PROJECT: count.default(30),
  DOMAIN_LIMIT_PER_ADDRESS: count.default(60),
  DOMAIN_LIMIT_WINDOW_SECONDS: seconds.default(3600),
  // A timer keeps at most 2^31 - 1 ms (24.8 days); beyond it Node fires it at once.
  SWEEP_INTERVAL_SECONDS: seconds.max(Math.floor(MAX_TIMER_MS / 1000)).default(60),
  MAX_ASSETS: count.default(100_000),
  MAX_ASSET_BYTES: count.default(25 * MIB),
  // The paths of one manifest together: 100,000 paths of 168 bytes on average, where large real
  // sites average well under 100; half of MAX_BODY_BYTES (issue 31).
  MAX_MANIFEST_BYTES: count.default(16 * MIB),
  MAX_BODY_BYTES: count.default(32 * MIB),
  BUCKET_MAX_BYTES: count.default(50 * MIB),
  BUCKET_MAX_FILES: count.default(2_000),
  // Unset: the cores beside the main thread, at most two (defaultHashThreads); 0 hashes on it.
  UPLOAD_HASH_THREADS: count.max(64).optional(),
  CREATE_LIMIT_PER_ADDRESS: count.default(30),
  CREATE_LIMIT_PER_FINGERPRINT: count.default(10),
  CREATE_LIMIT_WINDOW_SECONDS: seconds.default(60),
  PREPARE_LIMIT_PER_PROJECT: count.default(60),
  PREPARE_LIMIT_PER_ADDRESS: count.default(120),
  PREPARE_LIMIT_WINDOW_SECONDS: seconds.default(60),
  RATE_LIMIT_KEYS: z.coerce.number().int().positive().default(100_000),
  BODY_BYTES_IN_FLIGHT: count.default(64 * MIB),
  BODY_BYTES_PER_ADDRESS: count.default(32 * MIB),
  BODY_MIN_BYTES_PER_SECOND: count.default(16 * 1024),
  BODY_RATE_WINDOW_SECONDS: seconds.default(10),
  TRUST_PROXY: flag.default(false),
  PROJECT_QUOTA_BYTES: count.default(1024 * MIB),
  PENDING_QUOTA_BYTES: count.default(2048 * MIB),
  CLIENT_QUOTA_BYTES: count.default(5120 * MIB),
  CLIENT_QUOTA_WINDOW_SECONDS: seconds.default(2_592_000),
  MIN_FREE_BYTES: count.default(1024 * MIB),
  EDGE_CACHE_BYTES: count.default(64 * MIB),
  OBJECT_STORE_URL: z.string().optional(),
  AWS_ACCESS_KEY_ID: z.string().optional(),
  AWS_SECRET_ACCESS_KEY: z.string().optional(),
  AWS_REGION: z.string().default("us-east-1"),
  S3_ENDPOINT: z.string().url().optional(),
  S3_FORCE_PATH_STYLE: flag.default(false),
  OBJECT_STORE_TIMEOUT_SECONDS: seconds.default(30),
  EDGE_DISK_CACHE_BYTES: count.default(1024 * MIB),
  HEADERS_TIMEOUT_SECONDS: seconds.default(30),
  REQUEST_TIMEOUT_SECONDS: seconds.default(300),
  KEEP_ALIVE_TIMEOUT_SECONDS: seconds.default(5),
  UPLOAD_JWT_SECRET: z.string().min(32).optional(),
  ROLES: z.string().optional(),
  METRICS_HOST: z.string().default("127.0.0.1"),
  METRICS_PORT: port.default(9464),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ...CLOUDFLARE_ENV,
});
