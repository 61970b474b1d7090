import type { PlatformTable, PlatformTables } from "../../src/platform/selfhost/state/platform-tables.js";

/**
 * Every column of PlatformTables, by table, in the order the migrations give them. The compiler
 * checks it against the type both ways: a table or column missing here, or one the type lacks,
 * does not compile.
 */
export const PLATFORM_COLUMNS = {
  blobs: ["hash", "size", "created_at", "pack", "pack_offset", "damaged"],
  packs: ["id", "size", "live_bytes", "created_at"],
  upload_sessions: [
    "id",
    "project_slug",
    "created_at",
    "expires_at",
    "client_address",
    "pending_bytes",
    "asset_hashes",
    "published_revision",
    "manifest_digest",
    "base_manifest_id",
    "file_count",
    "row_bytes",
  ],
  session_assets: ["session_id", "path", "hash", "size", "content_type", "compressible"],
  session_hashes: ["session_id", "hash", "path", "size", "media_type", "compressible", "paths_compressible"],
  session_blobs: ["session_id", "hash"],
  sites: ["project_slug", "revision_id", "expires_at", "production_since"],
  site_hosts: ["hostname", "project_slug", "canonical_url"],
  site_aliases: ["project_slug", "alias", "revision_id", "since"],
  revisions: ["project_slug", "revision_id", "created_at", "row_bytes", "manifest_id"],
  manifests: ["project_slug", "id", "digest", "base_id", "file_count", "row_bytes", "created_at"],
  manifest_files: ["project_slug", "manifest_id", "path", "hash", "content_type", "compressible", "removed"],
  manifest_hashes: ["project_slug", "manifest_id", "hash", "compressible"],
  revision_rules: ["project_slug", "revision_id", "rules"],
  project_charges: ["project_slug", "client_address", "created_at", "charged_bytes", "charge_exact"],
  settings: ["key", "value"],
} as const satisfies { [T in PlatformTable]: readonly (keyof PlatformTables[T])[] };
type Unlisted = {
  [T in PlatformTable]: Exclude<keyof PlatformTables[T], (typeof PLATFORM_COLUMNS)[T][number]>;
}[PlatformTable];
/** True; were a column of PlatformTables missing from PLATFORM_COLUMNS, its name (a compile error). */
export const everyColumnListed: [Unlisted] extends [never] ? true : Unlisted = true;
