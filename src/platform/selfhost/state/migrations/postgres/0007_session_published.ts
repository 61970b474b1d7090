import { type Kysely, type Migration, sql } from "kysely";

/** The revision a session was published as (issue 31), as on SQLite (sqlite/0002). */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE upload_sessions ADD COLUMN published_revision TEXT`.execute(db);
  },
};
