import { type Kysely, type Migration, sql } from "kysely";

/**
 * Issue 32: the garbage collector finds the sessions naming a blob through an index on
 * session_hashes(hash), an entry a distinct hash of a session, and the index on
 * session_assets(hash), an entry a path of every prepare, goes (a 100,000-path prepare wrote
 * 100,000 entries into it). 0001 makes that one again in a file from before the Migrator (its
 * tables' frozen declaration has it), and this drops it there too.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE INDEX IF NOT EXISTS session_hashes_hash ON session_hashes (hash)`.execute(db);
    await sql`DROP INDEX IF EXISTS session_assets_hash`.execute(db);
  },
};
