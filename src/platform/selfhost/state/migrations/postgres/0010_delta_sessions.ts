import { type Kysely, type Migration, sql } from "kysely";

/** Delta sessions (issue 32), as on SQLite (sqlite/0004_delta_sessions.ts). */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE upload_sessions ADD COLUMN base_manifest_id TEXT, ADD COLUMN file_count BIGINT,
      ADD COLUMN row_bytes BIGINT`.execute(db);
    await sql`CREATE INDEX blobs_damaged ON blobs (hash) WHERE damaged <> 0`.execute(db);
  },
};
