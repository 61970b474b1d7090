import { type Kysely, type Migration, sql } from "kysely";

/** A recorded charge that is the full sum (issue 32), as on SQLite (sqlite/0006_charge_exact.ts). */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE project_charges ADD COLUMN charge_exact INTEGER NOT NULL DEFAULT 0`.execute(db);
  },
};
