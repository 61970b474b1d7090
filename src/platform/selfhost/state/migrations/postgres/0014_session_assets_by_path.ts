import { type Kysely, type Migration, sql } from "kysely";
import { FILL_PATHS_COMPRESSIBLE } from "../backfills.js";

/**
 * session_assets keyed by (session_id, path) again, and session_hashes.paths_compressible, as on
 * SQLite (sqlite/0008_session_assets_by_path.ts): filled while the rows are still found by hash.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE session_hashes ADD COLUMN paths_compressible INTEGER NOT NULL DEFAULT 0`.execute(
      db,
    );
    await sql.raw(FILL_PATHS_COMPRESSIBLE).execute(db);
    await sql`ALTER TABLE session_assets DROP CONSTRAINT session_assets_pkey`.execute(db);
    await sql`ALTER TABLE session_assets ADD PRIMARY KEY (session_id, path)`.execute(db);
  },
};
