import { type Kysely, type Migration, sql } from "kysely";

/** Keyed by hash before path, as on SQLite: a manifest is written in hash order. */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE session_assets DROP CONSTRAINT session_assets_pkey`.execute(db);
    await sql`ALTER TABLE session_assets ADD PRIMARY KEY (session_id, hash, path)`.execute(db);
  },
};
