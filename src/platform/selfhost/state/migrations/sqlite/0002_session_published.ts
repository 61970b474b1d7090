import { type Kysely, type Migration, sql } from "kysely";

/**
 * The revision a session was published as: its manifest rows are deleted then, the revision has
 * them (issue 31: a published session's rows no longer wait for its expiry on disk).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE upload_sessions ADD COLUMN published_revision TEXT`.execute(db);
  },
};
