import { randomBytes } from "node:crypto";
import { generateAccountId } from "../../core/ids.js";
import type { PostgresOptions } from "../../shared/database/postgres.js";
import { BlobReader } from "./content/blob-reader.js";
import { ContentDirectory } from "./content/content-directory.js";
import { OBJECT_STORE_ORPHAN_GRACE_MS, openPackStorage } from "./content/open-pack-storage.js";
import type { PackStorage } from "./content/pack-storage.js";
import type { S3Settings } from "./content/s3/s3-settings.js";
import { removeOrphanFiles } from "./maintenance/orphan-files.js";
import { freeBytesOf, type StorageLimits } from "./quotas/storage-limits.js";
import { SelfHostedPlatform } from "./selfhost-platform.js";
import type { BucketLimits } from "./sessions/buckets.js";
import { UploadSessions } from "./sessions/upload-sessions.js";
import { UploadTokens } from "./sessions/upload-tokens.js";
import type { PlatformDatabase } from "./state/platform-db.js";
import { openPlatformDatabase, settingOrCreate } from "./state/sqlite-database.js";

/** What the self-hosted platform needs to open its state. */
export interface SelfHostedStateOptions {
  /** Where the upload service is reached from outside, without a trailing slash. */
  uploadBaseUrl: string;
  /** Signs upload and completion tokens; generated once and kept in the database when absent. */
  uploadJwtSecret?: string;
  bucketLimits: BucketLimits;
  /** The quotas and the free-space guard (0: none); free space is read where the blobs are. */
  storage?: Omit<StorageLimits, "freeBytes">;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Told what the start-up sweep removed or why it failed. */
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  /** Packs go to this object store (OBJECT_STORE_URL) instead of the local folder. */
  objectStore?: S3Settings;
  /** Where the platform's state lives on PostgreSQL (DATABASE_URL); SQLite under `dir` when absent. */
  postgres?: PostgresOptions;
  /**
   * Hear other processes' writes of the published manifest (PostgreSQL's LISTEN, on a connection
   * of its own), so the edge's caches drop what they made stale. Default true; a process that
   * serves no site does without.
   */
  listenForManifest?: boolean;
}

/** The self-hosted platform's state, opened: the `Platform` port and what its two HTTP faces use. */
export interface SelfHostedState {
  platform: SelfHostedPlatform;
  accountId: string;
  /** What the upload service reads and writes. */
  upload: {
    sessions: UploadSessions;
    content: ContentDirectory;
    packStorage: PackStorage;
    tokens: UploadTokens;
    storage: StorageLimits | undefined;
  };
  /** What the edge reads. */
  edge: { db: PlatformDatabase; reader: BlobReader; content: ContentDirectory };
}

/**
 * Opens the platform's database and content under `dir` (removing files a crash left unnamed) and
 * builds the platform on that one state.
 */
export async function openSelfHostedState(
  dir: string,
  options: SelfHostedStateOptions,
): Promise<SelfHostedState> {
  const { log, now } = options;
  const db = await openPlatformDatabase(dir, options.postgres, { listen: options.listenForManifest ?? true });
  const content = new ContentDirectory(dir);
  const { storage: packStorage, shared } = await openPackStorage(dir, options.objectStore);
  const files = { packs: content, storage: packStorage };
  // Packs others may be recording are spared; a store that is down must not stop the start.
  const sweep = removeOrphanFiles(db, files, shared ? now() - OBJECT_STORE_ORPHAN_GRACE_MS : Infinity).then(
    (orphans) => orphans > 0 && log.info({ orphans }, "removed content no row named"),
  );
  if (shared) sweep.catch((error: unknown) => log.warn({ err: error }, "orphan sweep failed"));
  else await sweep;
  const reader = new BlobReader(db, content, packStorage);
  const accountId = await settingOrCreate(db, "account_id", generateAccountId);
  const secret =
    options.uploadJwtSecret ??
    (await settingOrCreate(db, "upload_jwt_secret", () => randomBytes(32).toString("hex")));
  const sessions = new UploadSessions(db);
  const storage: StorageLimits | undefined = options.storage && {
    ...options.storage,
    freeBytes: freeBytesOf(dir),
  };
  const tokens = new UploadTokens(secret, now);
  const platform = new SelfHostedPlatform({
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
    log,
  });
  return {
    platform,
    accountId,
    upload: { sessions, content, packStorage, tokens, storage },
    edge: { db, reader, content },
  };
}
