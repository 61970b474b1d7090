import { type Kysely, type Migration, sql } from "kysely";

/**
 * The platform's tables on PostgreSQL, as SQLite had them then: the same names and columns, BIGINT
 * for sizes and times in milliseconds. They live in a schema of their own (`platform`), beside the
 * metadata store's tables in the same database.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of INITIAL) await sql.raw(statement).execute(db);
  },
};

const INITIAL = [
  `CREATE TABLE blobs (
    hash TEXT PRIMARY KEY,
    size BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    pack TEXT,
    pack_offset BIGINT,
    damaged INTEGER NOT NULL DEFAULT 0
  )`,
  "CREATE INDEX blobs_pack ON blobs (pack, pack_offset)",
  `CREATE TABLE packs (
    id TEXT PRIMARY KEY,
    size BIGINT NOT NULL,
    live_bytes BIGINT NOT NULL,
    created_at BIGINT NOT NULL
  )`,
  `CREATE TABLE upload_sessions (
    id TEXT PRIMARY KEY,
    project_slug TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    client_address TEXT,
    pending_bytes BIGINT NOT NULL DEFAULT 0,
    asset_hashes BIGINT
  )`,
  "CREATE INDEX upload_sessions_project ON upload_sessions (project_slug)",
  "CREATE INDEX upload_sessions_address ON upload_sessions (client_address)",
  "CREATE INDEX upload_sessions_expires ON upload_sessions (expires_at)",
  `CREATE TABLE session_assets (
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    hash TEXT NOT NULL,
    size BIGINT NOT NULL,
    content_type TEXT NOT NULL,
    PRIMARY KEY (session_id, path)
  )`,
  "CREATE INDEX session_assets_hash ON session_assets (hash)",
  `CREATE TABLE session_blobs (
    session_id TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (session_id, hash)
  )`,
  "CREATE INDEX session_blobs_hash ON session_blobs (hash)",
  `CREATE TABLE sites (
    project_slug TEXT PRIMARY KEY,
    revision_id TEXT,
    expires_at BIGINT NOT NULL,
    production_since BIGINT
  )`,
  `CREATE TABLE site_hosts (
    hostname TEXT PRIMARY KEY,
    project_slug TEXT NOT NULL,
    canonical_url TEXT
  )`,
  "CREATE INDEX site_hosts_project ON site_hosts (project_slug)",
  `CREATE TABLE revisions (
    project_slug TEXT NOT NULL,
    revision_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (project_slug, revision_id)
  )`,
  `CREATE TABLE revision_files (
    project_slug TEXT NOT NULL,
    revision_id TEXT NOT NULL,
    path TEXT NOT NULL,
    hash TEXT NOT NULL,
    content_type TEXT NOT NULL,
    PRIMARY KEY (project_slug, revision_id, path)
  )`,
  "CREATE INDEX revision_files_hash ON revision_files (hash)",
  "CREATE INDEX revision_files_project_hash ON revision_files (project_slug, hash)",
  `CREATE TABLE revision_rules (
    project_slug TEXT NOT NULL,
    revision_id TEXT NOT NULL,
    rules TEXT NOT NULL,
    PRIMARY KEY (project_slug, revision_id)
  )`,
  `CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  )`,
];
