import { type Kysely, sql } from "kysely";
import type { PlatformTable } from "../../platform-tables.js";

/**
 * Makes every write of `table` notify the edges of every process (the migration that creates a
 * table of MANIFEST_TABLES calls this): the function of 0002_manifest_notify runs once per
 * statement, and notifies at the transaction's commit.
 */
export async function notifyManifestWrites(db: Kysely<unknown>, table: PlatformTable): Promise<void> {
  await sql
    .raw(
      `CREATE TRIGGER ${table}_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
          ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION manifest_notify()`,
    )
    .execute(db);
}
