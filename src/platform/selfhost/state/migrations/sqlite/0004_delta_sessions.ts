import { type Kysely, type Migration, sql } from "kysely";
import { addColumn } from "./0001_platform-tables.js";

/*
 * Delta sessions (issue 32, sessions/delta-open.ts): a session opened as a delta of its project's
 * full manifest names it (`base_manifest_id`) and records the count of files and the charge of the
 * rows of the whole manifest it stands for (`file_count`, `row_bytes`: its own rows hold only the
 * paths added, changed or removed). The damaged blobs get an index of their own (partial: they
 * are few), what such a prepare asks about instead of every unchanged hash. Like 0002 it leaves
 * what a file has already as it is (a crash between its statements: the Migrator opens no
 * transaction on SQLite).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    const { rows } = await sql<{
      name: string;
    }>`SELECT name FROM pragma_table_info('upload_sessions')`.execute(db);
    const has = new Set(rows.map((column) => column.name));
    if (!has.has("base_manifest_id")) await addColumn(db, "upload_sessions", ["base_manifest_id", "TEXT"]);
    if (!has.has("file_count")) await addColumn(db, "upload_sessions", ["file_count", "INTEGER"]);
    if (!has.has("row_bytes")) await addColumn(db, "upload_sessions", ["row_bytes", "INTEGER"]);
    await sql`CREATE INDEX IF NOT EXISTS blobs_damaged ON blobs (hash) WHERE damaged <> 0`.execute(db);
  },
};
