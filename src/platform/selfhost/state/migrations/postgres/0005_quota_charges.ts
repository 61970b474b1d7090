import { type Kysely, type Migration, sql } from "kysely";
import { fillRowBytes } from "../backfills.js";

/**
 * What the storage quotas count, as on SQLite: whether the edge compresses a path's file, each
 * revision's row charge (counted now for those from before), and each project's creator and charge.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    for (const table of ["session_assets", "revision_files"]) {
      await sql.raw(`ALTER TABLE ${table} ADD COLUMN compressible INTEGER NOT NULL DEFAULT 0`).execute(db);
    }
    await sql`ALTER TABLE revisions ADD COLUMN row_bytes BIGINT NOT NULL DEFAULT 0`.execute(db);
    await sql.raw(fillRowBytes("postgres")).execute(db);
    await sql`CREATE TABLE project_charges (
        project_slug TEXT PRIMARY KEY,
        client_address TEXT,
        created_at BIGINT,
        charged_bytes BIGINT NOT NULL DEFAULT 0
      )`.execute(db);
    await sql`CREATE INDEX project_charges_client ON project_charges (client_address, created_at)`.execute(
      db,
    );
  },
};
