import { type Kysely, type Migration, sql } from "kysely";
import { FILL_PATHS_COMPRESSIBLE } from "../backfills.js";
import { addColumn, createTable, type TableDeclaration } from "./0001_platform-tables.js";

/*
 * Issue 32: session_assets keyed by (session_id, path) again, written by a prepare in path order
 * (sessions/session-open.ts), so that a publish copies a session's rows into manifest_files (keyed
 * by path, 0007) in the order of both keys: in hash order into a table keyed by path, every commit
 * rewrote pages all over it. Keyed by hash it was for an index on session_assets(hash), gone since
 * 0005. What a publish then needs of a hash's rows, whether one of its paths is compressible,
 * is recorded with the hash (session_hashes.paths_compressible, at prepare; filled here for the
 * open sessions). The fill and the rebuild go in one transaction (the rows are only open
 * sessions'), so a crash leaves them as they were, and a file rekeyed already is left as it is.
 */

const SESSION_ASSETS: TableDeclaration = {
  columns: [
    ["session_id", "TEXT", "not null"],
    ["path", "TEXT", "not null"],
    ["hash", "TEXT", "not null"],
    ["size", "INTEGER", "not null"],
    ["content_type", "TEXT", "not null"],
    ["compressible", "INTEGER", "not null default 0"],
  ],
  primaryKey: ["session_id", "path"],
};

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    const { rows: columns } = await sql<{
      name: string;
    }>`SELECT name FROM pragma_table_info('session_hashes') WHERE name = 'paths_compressible'`.execute(db);
    const added = columns.length === 0;
    if (added) await addColumn(db, "session_hashes", ["paths_compressible", "INTEGER", "not null default 0"]);
    const { rows } = await sql<{
      pk: number;
    }>`SELECT pk FROM pragma_table_info('session_assets') WHERE name = 'hash'`.execute(db);
    if ((rows[0]?.pk ?? 0) === 0) {
      // Rekeyed already (a file some tests build from today's schema): the column filled if new.
      if (added) await sql.raw(FILL_PATHS_COMPRESSIBLE).execute(db);
      return;
    }
    await db.transaction().execute(async (trx) => {
      await sql.raw(FILL_PATHS_COMPRESSIBLE).execute(trx);
      await sql`ALTER TABLE session_assets RENAME TO session_assets_by_hash`.execute(trx);
      await createTable(trx, "session_assets", SESSION_ASSETS);
      await sql`INSERT INTO session_assets (session_id, path, hash, size, content_type, compressible)
        SELECT session_id, path, hash, size, content_type, compressible FROM session_assets_by_hash
        ORDER BY session_id, path`.execute(trx);
      await sql`DROP TABLE session_assets_by_hash`.execute(trx);
    });
  },
};
