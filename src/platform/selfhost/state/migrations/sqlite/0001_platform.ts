import { type Kysely, type Migration, sql } from "kysely";
import { FILL_SESSION_HASHES, fillRowBytes } from "../backfills.js";
import { addColumn, createIndexes, createTable, TABLES } from "./0001_platform-tables.js";

/**
 * The platform's tables on SQLite (0001_platform-tables.ts). A new file gets them created. A file
 * from before the Migrator has no migration table, so it runs this too, at whatever rung of the
 * old schema ladder it stands: what it lacks is added (tables, the columns later versions
 * appended, indexes), session_assets keyed by path is rekeyed, and the rows the ladder filled are
 * filled, so it ends as a new file would start. On a file the last ladder left, nothing changes.
 * Runs in the Migrator's transaction: a failure leaves the file as it was.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    const tables = sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`;
    const existing = new Set((await tables.execute(db)).rows.map((row) => row.name));
    const rekeyed = existing.has("session_assets") && !(await keyedByHash(db));
    if (rekeyed) {
      // Keyed (session_id, path) before: its rows go to the table as declared, keyed by hash.
      await sql`ALTER TABLE session_assets RENAME TO session_assets_by_path`.execute(db);
      await sql`DROP INDEX IF EXISTS session_assets_hash`.execute(db);
      existing.delete("session_assets");
    }
    const added = new Set<string>();
    for (const [name, table] of Object.entries(TABLES)) {
      if (!existing.has(name)) {
        await createTable(db, name, table);
        continue;
      }
      const columns = await columnsOf(db, name);
      for (const column of table.columns) {
        if (columns.has(column[0])) continue;
        await addColumn(db, name, column);
        added.add(`${name}.${column[0]}`);
      }
      await createIndexes(db, name, table);
    }
    if (!Object.keys(TABLES).some((name) => existing.has(name))) return;
    // What the ladder filled in a file from before.
    if (rekeyed) {
      await sql`INSERT INTO session_assets (session_id, path, hash, size, content_type)
        SELECT session_id, path, hash, size, content_type FROM session_assets_by_path`.execute(db);
      await sql`DROP TABLE session_assets_by_path`.execute(db);
    }
    if (!existing.has("session_hashes")) await sql.raw(FILL_SESSION_HASHES).execute(db);
    if (added.has("revisions.row_bytes")) await sql.raw(fillRowBytes("sqlite")).execute(db);
    // From before per-project deduplication: its open sessions were told that held content need
    // not be sent, so they keep it.
    if (!existing.has("session_blobs")) {
      const held = sql`INSERT OR IGNORE INTO session_blobs (session_id, hash)
        SELECT DISTINCT s.session_id, s.hash FROM session_assets s JOIN blobs b ON b.hash = s.hash`;
      await held.execute(db);
    }
  },
};

/** The columns of `table`, each with its place in the key (0: not in it). */
async function columnsOf(db: Kysely<unknown>, table: string): Promise<Map<string, number>> {
  const query = sql<{ name: string; pk: number }>`SELECT name, pk FROM pragma_table_info(${table})`;
  return new Map((await query.execute(db)).rows.map((row) => [row.name, row.pk]));
}

/** Whether session_assets has hash in its key (as every version since its rekey). */
async function keyedByHash(db: Kysely<unknown>): Promise<boolean> {
  return ((await columnsOf(db, "session_assets")).get("hash") ?? 0) > 0;
}
