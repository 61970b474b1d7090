import { type Kysely, type Migration, sql } from "kysely";
import { addColumn } from "./0001_platform-tables.js";

/*
 * Issue 32: a publish adds what its revision adds to the project's recorded charge instead of
 * summing every kept revision again (quotas/quota-gate.ts), which it may only do on a charge that
 * is the full sum as the project's manifests are now: `charge_exact` 1. A row from before (0) is
 * summed whole by its next publish. Like 0004 it leaves what a file has already as it is.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    const { rows } = await sql<{
      name: string;
    }>`SELECT name FROM pragma_table_info('project_charges')`.execute(db);
    if (!rows.some((column) => column.name === "charge_exact")) {
      await addColumn(db, "project_charges", ["charge_exact", "INTEGER", "not null default 0"]);
    }
  },
};
