// The self-hosted platform's one entry point: the rest of src/ imports only this file (lint).
export { openSelfHostedState, type SelfHostedState, type SelfHostedStateOptions } from "./open-selfhosted.js";
export { SelfHostedPlatform } from "./selfhost-platform.js";
export { SelfHostedEdgeStorage } from "./adapters/selfhost-edge-storage.js";
export { migratePostgresPlatform } from "./state/postgres-database.js";
export type { PlatformDatabase } from "./state/sqlite-database.js";
export { type S3Settings, parseObjectStoreUrl } from "./content/s3/s3-settings.js";
export type { BlobReader } from "./content/blob-reader.js";
export type { ContentDirectory } from "./content/content-directory.js";
export { closingAfterStreams } from "./content/file-range.js";
export type { PackStorage } from "./content/pack-storage.js";
export type { PackWriter } from "./content/pack-writer.js";
export { RangeStream } from "./content/range-stream.js";
export { isOutOfSpace, lacksRoomFor, type StorageLimits } from "./quotas/storage-limits.js";
export type { BucketLimits } from "./sessions/buckets.js";
export type { ReceivedBucket, StoredBlob, UploadSessions } from "./sessions/upload-sessions.js";
export type { UploadTokens } from "./sessions/upload-tokens.js";
export { PublishedSites, type SiteTarget, type StoredFile } from "./sites/published-sites.js";
