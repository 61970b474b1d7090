import { type Kysely, sql } from "kysely";
import type { PlatformTable } from "../../platform-tables.js";

/** A table the notify triggers were installed on: today's, or one a later migration dropped. */
type NotifiedTable = PlatformTable | "revision_files";

/**
 * Makes every write of `table` notify the edges of every process, with no project named (what
 * 0002_manifest_notify and 0004_site_aliases installed; 0008 replaced it): kept as shipped, since
 * those migrations call it.
 */
export async function notifyManifestWrites(db: Kysely<unknown>, table: NotifiedTable): Promise<void> {
  await sql
    .raw(
      `CREATE TRIGGER ${table}_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
          ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION manifest_notify()`,
    )
    .execute(db);
}

/**
 * Makes every write of `table` (a table of MANIFEST_TABLES, with a `project_slug` column) notify
 * the edges of every process of the projects it touched (the functions of 0008_manifest_notify_project):
 * once per statement and project, from the statement's transition tables, delivered at the
 * commit, where PostgreSQL folds the same project's repeats into one. PostgreSQL takes transition
 * tables on single-event triggers only, hence one trigger per event; a TRUNCATE names no project
 * (its edges drop everything).
 */
export async function notifyManifestWritesByProject(
  db: Kysely<unknown>,
  table: NotifiedTable,
): Promise<void> {
  const triggers = [
    ["inserted", "INSERT", "REFERENCING NEW TABLE AS new_rows"],
    ["updated", "UPDATE", "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows"],
    ["deleted", "DELETE", "REFERENCING OLD TABLE AS old_rows"],
  ] as const;
  for (const [name, event, referencing] of triggers) {
    await sql
      .raw(
        `CREATE TRIGGER ${table}_notify_${name} AFTER ${event} ON ${table} ${referencing}
          FOR EACH STATEMENT EXECUTE FUNCTION manifest_notify_${name}()`,
      )
      .execute(db);
  }
  await sql
    .raw(
      `CREATE TRIGGER ${table}_notify_truncated AFTER TRUNCATE ON ${table}
          FOR EACH STATEMENT EXECUTE FUNCTION manifest_notify()`,
    )
    .execute(db);
}
