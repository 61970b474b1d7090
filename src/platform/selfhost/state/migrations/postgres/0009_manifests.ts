import { type Kysely, type Migration, sql } from "kysely";
import { fillManifests } from "../manifest-backfill.js";

/**
 * Manifests stored once (issue 32), as on SQLite (sqlite/0003_manifests.ts): `manifests` and
 * `manifest_files`, `revisions.manifest_id`, `upload_sessions.manifest_digest`; existing
 * revisions' files move into a full manifest each, then revision_files goes (with its NOTIFY
 * triggers). The new tables notify nothing: the edge reaches a manifest through a `revisions` row
 * only, whose writes notify, and a manifest never changes while a revision names it. The move goes
 * in slices of `sliceRows` files a statement (manifest-backfill.ts), all in the Migrator's one
 * transaction: a crash undoes it whole.
 */
export function manifestsMigration(sliceRows?: number): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
      await fillManifests(db, { inSlice: (work) => work(db), ...(sliceRows && { sliceRows }) });
      await sql`DROP TABLE revision_files`.execute(db);
    },
  };
}

/** 0009_manifests as it runs: BACKFILL_SLICE_ROWS files a statement. */
export const migration: Migration = manifestsMigration();

const STATEMENTS = [
  `CREATE TABLE manifests (
    project_slug TEXT NOT NULL,
    id TEXT NOT NULL,
    digest TEXT,
    base_id TEXT,
    file_count BIGINT,
    row_bytes BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (project_slug, id)
  )`,
  "CREATE INDEX manifests_digest ON manifests (project_slug, digest)",
  "CREATE INDEX manifests_base ON manifests (project_slug, base_id)",
  `CREATE TABLE manifest_files (
    project_slug TEXT NOT NULL,
    manifest_id TEXT NOT NULL,
    path TEXT NOT NULL,
    hash TEXT NOT NULL,
    content_type TEXT NOT NULL,
    compressible INTEGER NOT NULL DEFAULT 0,
    removed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (project_slug, manifest_id, path)
  )`,
  "CREATE INDEX manifest_files_hash ON manifest_files (hash)",
  "CREATE INDEX manifest_files_project_hash ON manifest_files (project_slug, hash)",
  "ALTER TABLE revisions ADD COLUMN manifest_id TEXT",
  "ALTER TABLE upload_sessions ADD COLUMN manifest_digest TEXT",
];
