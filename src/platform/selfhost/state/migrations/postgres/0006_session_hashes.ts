import { type Kysely, type Migration, sql } from "kysely";
import { FILL_SESSION_HASHES } from "../backfills.js";

/**
 * Issue 31: each hash of a session once, what an uploaded part is looked up by (as on SQLite),
 * filled from the manifests of the sessions open now.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE TABLE session_hashes (
        session_id TEXT NOT NULL,
        hash TEXT NOT NULL,
        path TEXT NOT NULL,
        size BIGINT NOT NULL,
        media_type TEXT,
        compressible INTEGER,
        PRIMARY KEY (session_id, hash)
      )`.execute(db);
    await sql.raw(FILL_SESSION_HASHES).execute(db);
  },
};
