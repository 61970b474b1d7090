import { type Kysely, type Migration, sql } from "kysely";

/** Issue 32: the index on session_assets(hash) goes, as on SQLite (sqlite/0005). */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`DROP INDEX IF EXISTS session_assets_hash`.execute(db);
  },
};
