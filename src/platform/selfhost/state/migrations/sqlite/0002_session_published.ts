import { type Kysely, type Migration, sql } from "kysely";

/**
 * The revision a session was published as: its manifest rows are deleted then, the revision has
 * them (issue 31: a published session's rows no longer wait for its expiry on disk). Like 0001 it
 * leaves a file that has the column already as it is (a folder some tests rebuild without the
 * Migrator's record, from today's schema).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    const { rows } = await sql<{
      name: string;
    }>`SELECT name FROM pragma_table_info('upload_sessions')`.execute(db);
    if (rows.some((column) => column.name === "published_revision")) return;
    await sql`ALTER TABLE upload_sessions ADD COLUMN published_revision TEXT`.execute(db);
  },
};
