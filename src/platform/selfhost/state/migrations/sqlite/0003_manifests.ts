import { type Kysely, type Migration, sql } from "kysely";
import { fillManifests } from "../manifest-backfill.js";
import { addColumn, createTable, type TableDeclaration } from "./0001_platform-tables.js";

/*
 * Manifests stored once (issue 32): a revision names a manifest (`revisions.manifest_id`) instead
 * of owning a copy of its files (`revision_files`); equal manifests of a project share one row,
 * and a new one is stored as a delta of a full one when small (sites/manifest-staging.ts).
 * Existing revisions' files move into a full manifest each, then revision_files goes.
 */

const NN = "not null";
const ZERO = "not null default 0";

const MANIFESTS: TableDeclaration = {
  columns: [
    ["project_slug", "TEXT", NN],
    ["id", "TEXT", NN],
    ["digest", "TEXT"],
    ["base_id", "TEXT"],
    ["file_count", "INTEGER"],
    ["row_bytes", "INTEGER", ZERO],
    ["created_at", "INTEGER", NN],
  ],
  primaryKey: ["project_slug", "id"],
  indexes: { manifests_digest: ["project_slug", "digest"], manifests_base: ["project_slug", "base_id"] },
};

const MANIFEST_FILES: TableDeclaration = {
  columns: [
    ["project_slug", "TEXT", NN],
    ["manifest_id", "TEXT", NN],
    ["path", "TEXT", NN],
    ["hash", "TEXT", NN],
    ["content_type", "TEXT", NN],
    ["compressible", "INTEGER", ZERO],
    ["removed", "INTEGER", ZERO],
  ],
  primaryKey: ["project_slug", "manifest_id", "path"],
  indexes: { manifest_files_hash: ["hash"], manifest_files_project_hash: ["project_slug", "hash"] },
};

/**
 * The tables, the columns and the move, each part done only when not done yet: the Migrator opens
 * no transaction on SQLite, so a crash leaves the tables made and the move part done, and the
 * next start goes on from there (each slice of `sliceRows` files is a transaction of its own,
 * manifest-backfill.ts). Like 0002 it leaves what a file has already as it is (a folder some tests
 * rebuild without the Migrator's record, from today's schema: 0001 then made an empty
 * revision_files again, which goes, and every revision names its manifest already).
 */
export function manifestsMigration(sliceRows?: number): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const tables = sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`;
      const existing = new Set((await tables.execute(db)).rows.map((row) => row.name));
      if (!existing.has("manifests")) await createTable(db, "manifests", MANIFESTS);
      if (!existing.has("manifest_files")) await createTable(db, "manifest_files", MANIFEST_FILES);
      if (!(await hasColumn(db, "revisions", "manifest_id"))) {
        await addColumn(db, "revisions", ["manifest_id", "TEXT"]);
      }
      if (!(await hasColumn(db, "upload_sessions", "manifest_digest"))) {
        await addColumn(db, "upload_sessions", ["manifest_digest", "TEXT"]);
      }
      if (!existing.has("revision_files")) return;
      const inSlice = (work: (trx: Kysely<unknown>) => Promise<void>) => db.transaction().execute(work);
      await fillManifests(db, { inSlice, ...(sliceRows && { sliceRows }) });
      await sql`DROP TABLE revision_files`.execute(db);
    },
  };
}

/** 0003_manifests as it runs: BACKFILL_SLICE_ROWS files a statement. */
export const migration: Migration = manifestsMigration();

async function hasColumn(db: Kysely<unknown>, table: string, column: string): Promise<boolean> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(db);
  return rows.some((row) => row.name === column);
}
