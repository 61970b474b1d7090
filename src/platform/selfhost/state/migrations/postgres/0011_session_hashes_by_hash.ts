import { type Kysely, type Migration, sql } from "kysely";

/** Issue 32: the collector's index moves from session_assets(hash) to session_hashes(hash), as on SQLite (sqlite/0005). */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE INDEX IF NOT EXISTS session_hashes_hash ON session_hashes (hash)`.execute(db);
    await sql`DROP INDEX IF EXISTS session_assets_hash`.execute(db);
  },
};
