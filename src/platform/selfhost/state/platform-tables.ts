import type { Generated } from "kysely";

/**
 * The platform database's tables as Kysely sees them, on both engines (created by the migrations
 * of ./migrations). Times are milliseconds since the epoch; sizes are bytes (BIGINT on
 * PostgreSQL, read as numbers). `Generated` marks a column with a default an insert may omit.
 */
export interface PlatformTables {
  /** Content held, once across projects: a byte range of a pack, or (from before packs) a file. */
  blobs: {
    hash: string;
    size: number;
    created_at: number;
    pack: string | null;
    pack_offset: number | null;
    /** 1 once its bytes were found short or missing: not served, asked for again. */
    damaged: Generated<number>;
  };
  /** Pack files: the blobs one upload verified; `live_bytes` counts what rows still name. */
  packs: { id: string; size: number; live_bytes: number; created_at: number };
  upload_sessions: {
    id: string;
    project_slug: string;
    created_at: number;
    expires_at: number;
    client_address: string | null;
    pending_bytes: Generated<number>;
    /** How many distinct hashes the manifest names, once written (NULL before). */
    asset_hashes: number | null;
    /** The revision it was published as; its manifest rows are deleted then. */
    published_revision: string | null;
    /** `manifestDigest` of its manifest (core/manifest-digest.ts), when prepare gave it. */
    manifest_digest: Generated<string | null>;
    /** A delta session's base: the full manifest its rows are a delta of (sessions/delta-open.ts). */
    base_manifest_id: Generated<string | null>;
    /** A delta session's count of files, and the charge of their rows (its own rows are fewer). */
    file_count: Generated<number | null>;
    row_bytes: Generated<number | null>;
  };
  /**
   * The manifest of an upload session, a row per path; of a delta session, a row per path added or
   * changed and a tombstone (hash empty) per path of its base it lacks. Keyed by (session_id, path),
   * written in path order, as a publish copies it into manifest_files.
   */
  session_assets: {
    session_id: string;
    path: string;
    hash: string;
    size: number;
    content_type: string;
    compressible: Generated<number>;
  };
  /** Each hash of a session once (sessions/session-hashes.ts). */
  session_hashes: {
    session_id: string;
    hash: string;
    path: string;
    size: number;
    media_type: string | null;
    compressible: number | null;
    /** 1 when one of the session's paths naming it has a compressible type by its extension. */
    paths_compressible: Generated<number>;
  };
  /** The content a session has (verified in its uploads, or its project's when it opened). */
  session_blobs: { session_id: string; hash: string };
  sites: {
    project_slug: string;
    revision_id: string | null;
    expires_at: number;
    production_since: number | null;
  };
  site_hosts: { hostname: string; project_slug: string; canonical_url: string | null };
  /** Stable preview names (deploy --alias); `since`: when the alias last moved. */
  site_aliases: { project_slug: string; alias: string; revision_id: string; since: number };
  /** `manifest_id`: its files (a row of `manifests`), shared with every revision of the same manifest. */
  revisions: {
    project_slug: string;
    revision_id: string;
    created_at: number;
    row_bytes: Generated<number>;
    manifest_id: string | null;
  };
  /**
   * A project's distinct manifests (sites/manifest-staging.ts): full (`base_id` NULL), or a delta
   * of a full one (its rows win over the base's, a `removed` row hides the base's path). `digest`:
   * `manifestDigest` when known; `file_count` NULL while its rows are being written.
   */
  manifests: {
    project_slug: string;
    id: string;
    digest: string | null;
    base_id: string | null;
    file_count: number | null;
    /** The charge of its rows, as each revision naming it is charged (`revisions.row_bytes`). */
    row_bytes: Generated<number>;
    created_at: number;
  };
  /**
   * A manifest's rows, a path each (`removed` 1: a delta's tombstone, hash empty), keyed by
   * (project_slug, manifest_id, path) and indexed by nothing else: its hashes are manifest_hashes.
   */
  manifest_files: {
    project_slug: string;
    manifest_id: string;
    path: string;
    hash: string;
    content_type: string;
    compressible: Generated<number>;
    removed: Generated<number>;
  };
  /**
   * Each manifest's distinct hashes (sites/manifest-hashes.ts): a full one's every hash, a delta's
   * those of its rows not removed; `compressible` 1 when one of its paths of the hash is. What asks
   * which manifests name a hash reads this, not manifest_files (which has no index by hash).
   */
  manifest_hashes: {
    project_slug: string;
    manifest_id: string;
    hash: string;
    compressible: number;
  };
  /** A revision's parsed `_redirects` and `_headers`, as JSON. */
  revision_rules: { project_slug: string; revision_id: string; rules: string };
  /** Each project's creator and what its kept revisions are charged (quotas/project-charges.ts). */
  project_charges: {
    project_slug: string;
    client_address: string | null;
    created_at: number | null;
    charged_bytes: Generated<number>;
    /** 1 when charged_bytes is the full sum of what the project keeps now (quotas/quota-gate.ts). */
    charge_exact: Generated<number>;
  };
  settings: { key: string; value: string };
}

/** A table of the platform database. */
export type PlatformTable = keyof PlatformTables;

/**
 * The tables the edge reads (the published manifest), each with a `project_slug`: each write of
 * one tells its readers which project it touched (SQLite: temporary triggers,
 * sites/manifest-generation.ts; PostgreSQL: NOTIFY triggers, added by the migration that creates
 * the table). Blobs are left out: a blob row never changes, and one is only
 * deleted once no manifest file names it. So are `manifests`, `manifest_files` and `manifest_hashes`: the edge reaches
 * a manifest through a `revisions` row only, and a manifest never changes while one names it.
 */
export const MANIFEST_TABLES = [
  "sites",
  "site_hosts",
  "revisions",
  "revision_rules",
  "site_aliases",
] as const satisfies readonly PlatformTable[];

/** The channel PostgreSQL's manifest triggers notify on (sites/manifest-listener.ts listens). */
export const MANIFEST_CHANNEL = "platform_manifest";
