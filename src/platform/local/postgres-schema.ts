import { type Kysely, sql } from "kysely";
import type { Migrations } from "../../shared/migrator.js";
import { rowBytesSumSql } from "./quota-charges.js";
import { FILL_SESSION_HASHES } from "./session-hashes.js";

/**
 * The platform database's tables on PostgreSQL, as SQLite has them (database.ts): the same names
 * and columns, BIGINT for sizes and times in milliseconds. They live in a schema of their own
 * (`platform`), beside the metadata store's tables in the same database. Never edit a migration
 * that has shipped; add the next.
 */
export const PLATFORM_MIGRATIONS: Migrations = {
  "0001_platform": {
    async up(db: Kysely<unknown>) {
      for (const statement of INITIAL) await sql.raw(statement).execute(db);
    },
  },
  "0002_manifest_notify": {
    // Every write of what the edge reads notifies, once per transaction and at its commit, the
    // edges of every process (ManifestListener): the payload names the schema written and the
    // writing connection's application_name (a process skips its own).
    async up(db: Kysely<unknown>) {
      await sql
        .raw(
          `CREATE FUNCTION manifest_notify() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('${MANIFEST_CHANNEL}',
            TG_TABLE_SCHEMA || ' ' || current_setting('application_name'));
          RETURN NULL;
        END $$`,
        )
        .execute(db);
      for (const table of MANIFEST_TABLES) {
        await sql
          .raw(
            `CREATE TRIGGER ${table}_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
          ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION manifest_notify()`,
          )
          .execute(db);
      }
    },
  },
  "0003_session_assets_by_hash": {
    // Keyed by hash before path, as on SQLite (database.ts): a manifest is written in hash order.
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE session_assets DROP CONSTRAINT session_assets_pkey`.execute(db);
      await sql`ALTER TABLE session_assets ADD PRIMARY KEY (session_id, hash, path)`.execute(db);
    },
  },
  "0004_site_aliases": {
    // Stable preview names (deploy --alias), as on SQLite (database.ts); the edge reads them, so
    // their writes notify like the other manifest tables'.
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE site_aliases (
        project_slug TEXT NOT NULL,
        alias TEXT NOT NULL,
        revision_id TEXT NOT NULL,
        since BIGINT NOT NULL,
        PRIMARY KEY (project_slug, alias))`.execute(db);
      await sql`CREATE TRIGGER site_aliases_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
        ON site_aliases FOR EACH STATEMENT EXECUTE FUNCTION manifest_notify()`.execute(db);
    },
  },
  "0005_quota_charges": {
    // What the storage quotas count, as on SQLite (database.ts, addQuotaCharges).
    async up(db: Kysely<unknown>) {
      for (const table of ["session_assets", "revision_files"]) {
        await sql.raw(`ALTER TABLE ${table} ADD COLUMN compressible INTEGER NOT NULL DEFAULT 0`).execute(db);
      }
      await sql`ALTER TABLE revisions ADD COLUMN row_bytes BIGINT NOT NULL DEFAULT 0`.execute(db);
      await sql
        .raw(
          `UPDATE revisions SET row_bytes = (SELECT ${rowBytesSumSql("postgres")} FROM revision_files f
          WHERE f.project_slug = revisions.project_slug AND f.revision_id = revisions.revision_id)`,
        )
        .execute(db);
      await sql`CREATE TABLE project_charges (
        project_slug TEXT PRIMARY KEY,
        client_address TEXT,
        created_at BIGINT,
        charged_bytes BIGINT NOT NULL DEFAULT 0
      )`.execute(db);
      await sql`CREATE INDEX project_charges_client ON project_charges (client_address, created_at)`.execute(
        db,
      );
    },
  },
  "0006_session_hashes": {
    // Issue 31: each hash of a session once, what an uploaded part is looked up by (as on SQLite,
    // session-hashes.ts), filled from the manifests of the sessions open now.
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE session_hashes (
        session_id TEXT NOT NULL,
        hash TEXT NOT NULL,
        path TEXT NOT NULL,
        size BIGINT NOT NULL,
        media_type TEXT,
        compressible INTEGER,
        PRIMARY KEY (session_id, hash)
      )`.execute(db);
      await sql.raw(FILL_SESSION_HASHES).execute(db);
    },
  },
  "0007_session_published": {
    // The revision a session was published as: its rows are deleted then (issue 31), as on SQLite.
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE upload_sessions ADD COLUMN published_revision TEXT`.execute(db);
    },
  },
};

/** The channel the manifest triggers notify on. */
export const MANIFEST_CHANNEL = "platform_manifest";

// What the edge reads (as the SQLite triggers of site-tables.ts).
const MANIFEST_TABLES = ["sites", "site_hosts", "revisions", "revision_files", "revision_rules"];

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
