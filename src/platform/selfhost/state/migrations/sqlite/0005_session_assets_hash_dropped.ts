import { type Kysely, type Migration, sql } from "kysely";

/**
 * Issue 32: the index on session_assets(hash) goes. The garbage collector, its only reader, asks
 * session_hashes instead (each hash of a session once), and every prepare wrote an entry a path
 * into it at a random place: a third B-tree of 100,000 entries for a 100,000-path manifest. 0001
 * makes it again in a file from before the Migrator (its tables' frozen declaration has it), and
 * this drops it there too.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`DROP INDEX IF EXISTS session_assets_hash`.execute(db);
  },
};
