import { type Kysely, type Migration, sql } from "kysely";
import { FILL_MANIFESTS } from "../backfills.js";
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
 * The tables, the columns and the move. Like 0002 it leaves what a file has already as it is (a
 * folder some tests rebuild without the Migrator's record, from today's schema: 0001 then made an
 * empty revision_files again, which goes).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    const tables = sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`;
    const existing = new Set((await tables.execute(db)).rows.map((row) => row.name));
    const created = !existing.has("manifests");
    if (created) await createTable(db, "manifests", MANIFESTS);
    if (!existing.has("manifest_files")) await createTable(db, "manifest_files", MANIFEST_FILES);
    if (!(await hasColumn(db, "revisions", "manifest_id"))) {
      await addColumn(db, "revisions", ["manifest_id", "TEXT"]);
    }
    if (!(await hasColumn(db, "upload_sessions", "manifest_digest"))) {
      await addColumn(db, "upload_sessions", ["manifest_digest", "TEXT"]);
    }
    if (!existing.has("revision_files")) return;
    if (created) for (const statement of FILL_MANIFESTS) await sql.raw(statement).execute(db);
    await sql`DROP TABLE revision_files`.execute(db);
  },
};

async function hasColumn(db: Kysely<unknown>, table: string, column: string): Promise<boolean> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(db);
  return rows.some((row) => row.name === column);
}
