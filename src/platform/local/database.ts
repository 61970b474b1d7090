import { join } from "node:path";
import { sql } from "kysely";
import type { PostgresOptions } from "../../shared/postgres.js";
import { openSqlite, type SqliteDatabase } from "../../shared/sqlite.js";
import { checkpointInWorker } from "../../shared/wal-checkpointer.js";
import { openPostgresPlatformDatabase } from "./postgres-database.js";
import { firstOf, type PlatformDatabase, sqlitePlatformDatabase } from "./platform-db.js";
import { rowBytesSumSql } from "./quota-charges.js";
import { REVISION_RULES_TABLE } from "./revision-rules.js";
import { addSessionHashes } from "./session-hashes.js";

export type { PlatformDatabase } from "./platform-db.js";

/**
 * The local platform's own database: blobs held, upload sessions, and the published manifest the
 * edge reads (sites, their hostnames, revisions and files). A media type belongs to a path of a
 * session or revision, not to a blob: content is stored once across projects, its type is not, and
 * each project proves it has the bytes (`session_blobs`). Each change is one transaction.
 */

const SCHEMA = `
CREATE TABLE IF NOT EXISTS blobs (
  hash TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
-- Content is stored a bucket at a time: one pack file holds the blobs one upload verified, each a
-- byte range named by its blob's row (pack, pack_offset). A pack never changes once durable;
-- live_bytes counts what rows still name, so compaction knows which packs are mostly dead.
CREATE TABLE IF NOT EXISTS packs (
  id TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  live_bytes INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS upload_sessions (
  id TEXT PRIMARY KEY,
  project_slug TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  -- Who prepared it, and the bytes it asked for while not deployed (PENDING_QUOTA_BYTES).
  client_address TEXT,
  pending_bytes INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS upload_sessions_project ON upload_sessions(project_slug);
-- Keyed by hash before path: a manifest is written in hash order (upload-sessions.ts), so its
-- rows land on neighbouring pages of the table as of the index on hash (paths are unique in a
-- manifest already).
CREATE TABLE IF NOT EXISTS session_assets (
  session_id TEXT NOT NULL,
  path TEXT NOT NULL,
  hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  PRIMARY KEY (session_id, hash, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS session_assets_hash ON session_assets(hash);
-- The content a session has: verified in one of its uploads, or already its project's when it
-- opened (a hash of the project's revisions or of its open sessions' content). A blob another
-- project holds counts for this session only once its bytes came through this session.
CREATE TABLE IF NOT EXISTS session_blobs (
  session_id TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (session_id, hash)
) WITHOUT ROWID;
-- "Has one of this project's open sessions got this hash?" starts from the hash: through the
-- project's sessions it cost a probe per open session (50-file prepares fell from 448 to 65/s).
CREATE INDEX IF NOT EXISTS session_blobs_hash ON session_blobs(hash);
CREATE TABLE IF NOT EXISTS sites (
  project_slug TEXT PRIMARY KEY,
  revision_id TEXT,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS site_hosts (
  hostname TEXT PRIMARY KEY,
  project_slug TEXT NOT NULL,
  -- The URL this host names as canonical (the site's custom domain), or NULL.
  canonical_url TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS site_hosts_project ON site_hosts(project_slug);
-- Stable preview names (deploy --alias): <alias>--<slug>.<SITES_DOMAIN> serves revision_id,
-- which moves to each deploy with that alias; since: when it last moved (its Last-Modified).
CREATE TABLE IF NOT EXISTS site_aliases (
  project_slug TEXT NOT NULL,
  alias TEXT NOT NULL,
  revision_id TEXT NOT NULL,
  since INTEGER NOT NULL,
  PRIMARY KEY (project_slug, alias)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS revisions (
  project_slug TEXT NOT NULL,
  revision_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_slug, revision_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS revision_files (
  project_slug TEXT NOT NULL,
  revision_id TEXT NOT NULL,
  path TEXT NOT NULL,
  hash TEXT NOT NULL,
  content_type TEXT NOT NULL,
  PRIMARY KEY (project_slug, revision_id, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS revision_files_hash ON revision_files(hash);
CREATE INDEX IF NOT EXISTS revision_files_project_hash ON revision_files(project_slug, hash);
CREATE TABLE IF NOT EXISTS settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;

/**
 * Opens the platform database: on PostgreSQL when `postgres` is given (migrated, under a lock),
 * else the SQLite file under `dir` (created if needed, WAL mode with full sync).
 */
export async function openPlatformDatabase(
  dir: string,
  postgres?: PostgresOptions,
): Promise<PlatformDatabase> {
  if (postgres) return openPostgresPlatformDatabase(postgres);
  const file = join(dir, "platform.sqlite");
  const db = openSqlite(file);
  migrateSqlite(db);
  // Large sessions write tens of megabytes of log: their checkpoints go to a thread of their own.
  return sqlitePlatformDatabase(db, checkpointInWorker(file));
}

/** Creates the SQLite schema, or brings a database of an earlier version up to it. */
function migrateSqlite(db: SqliteDatabase): void {
  const before = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'session_blobs'").get();
  db.exec(SCHEMA);
  db.exec(REVISION_RULES_TABLE);
  // Columns added since the table was first created: a database from before gets them empty.
  const columns = new Set(
    (db.prepare("PRAGMA table_info(upload_sessions)").all() as { name: string }[]).map((c) => c.name),
  );
  if (!columns.has("client_address")) db.exec("ALTER TABLE upload_sessions ADD COLUMN client_address TEXT");
  if (!columns.has("pending_bytes")) {
    db.exec("ALTER TABLE upload_sessions ADD COLUMN pending_bytes INTEGER NOT NULL DEFAULT 0");
  }
  // How many distinct hashes the session's manifest names, once it is written (NULL before, and
  // for sessions opened before the column): what it misses is that less the content it has.
  if (!columns.has("asset_hashes")) db.exec("ALTER TABLE upload_sessions ADD COLUMN asset_hashes INTEGER");
  // The revision it was published as (its manifest rows are deleted then: the revision has them).
  if (!columns.has("published_revision")) {
    db.exec("ALTER TABLE upload_sessions ADD COLUMN published_revision TEXT");
  }
  db.exec("CREATE INDEX IF NOT EXISTS upload_sessions_address ON upload_sessions(client_address)");
  addPackColumns(db);
  keySessionAssetsByHash(db);
  // Issue 31: each hash of a session once, what an uploaded part is looked up by.
  addSessionHashes(db);
  // When the production revision last changed (publish or promote): its files' Last-Modified.
  const siteColumns = (db.prepare("PRAGMA table_info(sites)").all() as { name: string }[]).map((c) => c.name);
  if (!siteColumns.includes("production_since"))
    db.exec("ALTER TABLE sites ADD COLUMN production_since INTEGER");
  const hostColumns = db.prepare("PRAGMA table_info(site_hosts)").all() as { name: string }[];
  if (!hostColumns.some((c) => c.name === "canonical_url")) {
    db.exec("ALTER TABLE site_hosts ADD COLUMN canonical_url TEXT");
  }
  addQuotaCharges(db);
  // A database from before per-project deduplication: its open sessions were told that held
  // content need not be sent, so they keep it.
  if (before === undefined) {
    db.exec(`INSERT OR IGNORE INTO session_blobs (session_id, hash)
      SELECT DISTINCT s.session_id, s.hash FROM session_assets s JOIN blobs b ON b.hash = s.hash`);
  }
}

/**
 * What the storage quotas count (quota-charges.ts, project-charges.ts): whether the edge
 * compresses a path's file (its variants count), each revision's row charge (counted now for those
 * from before), and each project's creator and charge. Rows from before have `compressible` 0 and
 * projects from before no creator.
 */
function addQuotaCharges(db: SqliteDatabase): void {
  for (const table of ["session_assets", "revision_files"]) {
    const columns = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
    if (!columns.some((c) => c.name === "compressible")) {
      db.exec(`ALTER TABLE ${table} ADD COLUMN compressible INTEGER NOT NULL DEFAULT 0`);
    }
  }
  const revisionColumns = db.prepare("PRAGMA table_info(revisions)").all() as { name: string }[];
  if (!revisionColumns.some((c) => c.name === "row_bytes")) {
    db.exec("ALTER TABLE revisions ADD COLUMN row_bytes INTEGER NOT NULL DEFAULT 0");
    db.exec(`UPDATE revisions SET row_bytes = (SELECT ${rowBytesSumSql("sqlite")}
      FROM revision_files f WHERE f.project_slug = revisions.project_slug AND f.revision_id = revisions.revision_id)`);
  }
  db.exec(`CREATE TABLE IF NOT EXISTS project_charges (
    project_slug TEXT PRIMARY KEY,
    client_address TEXT,
    created_at INTEGER,
    charged_bytes INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID`);
  db.exec("CREATE INDEX IF NOT EXISTS project_charges_client ON project_charges(client_address, created_at)");
}

/**
 * A database from before session_assets was keyed (session_id, hash, path) has it keyed
 * (session_id, path): its rows are copied into the new table, in one transaction.
 */
function keySessionAssetsByHash(db: SqliteDatabase): void {
  const columns = db.prepare("PRAGMA table_info(session_assets)").all() as { name: string; pk: number }[];
  if (columns.find((column) => column.name === "hash")?.pk !== 0) return;
  db.transaction(() => {
    db.exec("ALTER TABLE session_assets RENAME TO session_assets_by_path");
    db.exec("DROP INDEX IF EXISTS session_assets_hash");
    db.exec(SCHEMA);
    db.exec(`INSERT INTO session_assets (session_id, path, hash, size, content_type)
      SELECT session_id, path, hash, size, content_type FROM session_assets_by_path`);
    db.exec("DROP TABLE session_assets_by_path");
  })();
}

/**
 * Where a blob's bytes are: a byte range of a pack (`pack`, `pack_offset`), or, for content stored
 * before packs, a file of its own (`pack` NULL) that compaction later moves into a pack. `damaged`:
 * its bytes were found short or missing; it is not served and counts as not held, so the next
 * prepare asks for it again and its upload repairs the row.
 */
function addPackColumns(db: SqliteDatabase): void {
  const columns = new Set(
    (db.prepare("PRAGMA table_info(blobs)").all() as { name: string }[]).map((c) => c.name),
  );
  if (!columns.has("pack")) db.exec("ALTER TABLE blobs ADD COLUMN pack TEXT");
  if (!columns.has("pack_offset")) db.exec("ALTER TABLE blobs ADD COLUMN pack_offset INTEGER");
  if (!columns.has("damaged")) db.exec("ALTER TABLE blobs ADD COLUMN damaged INTEGER NOT NULL DEFAULT 0");
  db.exec("CREATE INDEX IF NOT EXISTS blobs_pack ON blobs(pack, pack_offset)");
}

/** Reads a setting, or stores `create()` as its value the first time (the first writer's wins). */
export async function settingOrCreate(
  database: PlatformDatabase,
  key: string,
  create: () => string,
): Promise<string> {
  const read = () =>
    firstOf(database.db, sql<{ value: string }>`SELECT value FROM settings WHERE key = ${key}`);
  const row = await read();
  if (row) return row.value;
  await sql`INSERT INTO settings (key, value) VALUES (${key}, ${create()})
    ON CONFLICT (key) DO NOTHING`.execute(database.db);
  return (await read())!.value;
}
