import { randomBytes } from "node:crypto";
import { getRequestListener } from "@hono/node-server";
import type { Logger } from "pino";
import type { BodyPace } from "../shared/body-pace.js";
import type { Metrics } from "../shared/metrics.js";
import { generateAccountId } from "../core/ids.js";
import type { PostgresOptions } from "../shared/postgres.js";
import { createEdgeHandler, type EdgeHandler, largestCachedBlob } from "../edge/index.js";
import { BlobReader } from "../platform/local/blob-reader.js";
import type { BucketLimits } from "../platform/local/buckets.js";
import { openPlatformDatabase, settingOrCreate } from "../platform/local/database.js";
import { removeOrphanFiles } from "../platform/local/garbage-collector.js";
import { LocalPlatform } from "../platform/local/local-platform.js";
import type { ObjectStoreSettings } from "../platform/local/object-store.js";
import { OBJECT_STORE_ORPHAN_GRACE_MS, openPackStorage } from "../platform/local/open-pack-storage.js";
import { PackStore } from "../platform/local/pack-store.js";
import { UploadTokens } from "../platform/local/tokens.js";
import { freeBytesOf, type StorageLimits } from "../platform/local/storage-limits.js";
import { UploadSessions } from "../platform/local/upload-sessions.js";
import { createUploadApp } from "../upload/upload-app.js";
import { UploadService } from "../upload/upload-service.js";

export interface LocalPlatformOptions {
  /** Where the upload service is reached from outside, without a trailing slash. */
  uploadBaseUrl: string;
  /** Signs upload and completion tokens; generated once and kept in the database when absent. */
  uploadJwtSecret?: string;
  bucketLimits: BucketLimits;
  maxAssetBytes: number;
  /** The quotas and the free-space guard (0: none); free space is read where the blobs are. */
  storage?: Omit<StorageLimits, "freeBytes">;
  sitesDomain: string;
  edgeCacheBytes: number;
  /** Milliseconds since the epoch. */
  now: () => number;
  logger: Logger;
  /** Counts the upload service's requests and bytes. */
  metrics?: Metrics;
  /** Packs go to this object store (OBJECT_STORE_URL) instead of the local folder. */
  objectStore?: ObjectStoreSettings;
  /** The slowest a bucket body may arrive (BODY_MIN_BYTES_PER_SECOND); no minimum when absent. */
  bodyPace?: BodyPace;
  /** Where the platform's state lives on PostgreSQL (DATABASE_URL); SQLite under `dir` when absent. */
  postgres?: PostgresOptions;
}

/** The built-in platform, whole: the `Platform` port and the two listeners that face the world. */
export interface LocalPlatformParts {
  platform: LocalPlatform;
  /** Request listener of the upload service (Cloudflare's bucket-upload protocol). */
  uploadListener: ReturnType<typeof getRequestListener>;
  /** Request listener of the edge, which serves the published sites by Host. */
  edgeListener: EdgeHandler;
}

/**
 * Opens the local platform's database and content under `dir` (removing files a crash left
 * unnamed) and builds the platform, the upload service and the edge on that one state.
 */
export async function openLocalPlatform(
  dir: string,
  options: LocalPlatformOptions,
): Promise<LocalPlatformParts> {
  const { logger, now } = options;
  const db = await openPlatformDatabase(dir, options.postgres);
  const packs = new PackStore(dir);
  const { storage: packStorage, shared } = await openPackStorage(dir, options.objectStore);
  const files = { packs, storage: packStorage };
  // Packs others may be recording are spared; a store that is down must not stop the start.
  const sweep = removeOrphanFiles(db, files, shared ? now() - OBJECT_STORE_ORPHAN_GRACE_MS : Infinity).then(
    (orphans) => orphans > 0 && logger.info({ orphans }, "removed content no row named"),
  );
  if (shared) sweep.catch((error: unknown) => logger.warn({ err: error }, "orphan sweep failed"));
  else await sweep;
  const reader = new BlobReader(db, packs, files.storage);
  const accountId = await settingOrCreate(db, "account_id", generateAccountId);
  const secret =
    options.uploadJwtSecret ??
    (await settingOrCreate(db, "upload_jwt_secret", () => randomBytes(32).toString("hex")));
  const sessions = new UploadSessions(db);
  const storage: StorageLimits | undefined = options.storage && {
    // What the edge keeps out of its memory cache has its compressed variants on disk.
    diskVariantsAbove: largestCachedBlob(options.edgeCacheBytes),
    ...options.storage,
    freeBytes: freeBytesOf(dir),
  };
  const tokens = new UploadTokens(secret, now);

  const platform = new LocalPlatform({
    db,
    files,
    reader,
    sessions,
    tokens,
    accountId,
    uploadUrl: `${options.uploadBaseUrl}/accounts/${accountId}/workers/assets/upload?base64=true`,
    bucketLimits: options.bucketLimits,
    storage,
    now,
  });
  const service = new UploadService({
    accountId,
    sessions,
    packs,
    packStorage: files.storage,
    tokens,
    maxAssetBytes: options.maxAssetBytes,
    maxFiles: options.bucketLimits.maxFiles,
    // A full bucket plus room for the multipart framing of up to maxFiles parts.
    maxRequestBytes: options.bucketLimits.maxBytes + options.bucketLimits.maxFiles * 512 + 1024 * 1024,
    storage,
    now,
  });
  return {
    platform,
    uploadListener: getRequestListener(
      createUploadApp({
        service,
        logger: logger.child({ role: "upload" }),
        metrics: options.metrics,
        bodyPace: options.bodyPace,
      }).fetch,
    ),
    edgeListener: createEdgeHandler({
      db,
      reader,
      packs,
      sitesDomain: options.sitesDomain,
      cacheBytes: options.edgeCacheBytes,
      now,
      onError: (error) => logger.error({ err: error, role: "edge" }, "edge request failed"),
    }),
  };
}
