import { type Kysely, type Migration, sql } from "kysely";
import { MANIFEST_CHANNEL } from "../../platform-tables.js";
import { notifyManifestWritesByProject } from "./manifest-notify.js";

// The tables of MANIFEST_TABLES when this shipped; later ones get their triggers in their own migration.
const TABLES = [
  "sites",
  "site_hosts",
  "revisions",
  "revision_files",
  "revision_rules",
  "site_aliases",
] as const;

/**
 * A write of what the edge reads names the projects it touched (issue 32), so an edge forgets
 * only their lookups: the payload is 0002's (`<schema> <application_name>`) then a newline and the
 * project's slug. An application_name never holds a newline (PostgreSQL replaces it), nor does a
 * slug, and a listener of before this reads the new payload as a write of unknown extent.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    const rows = {
      inserted: "new_rows",
      updated: "old_rows UNION SELECT project_slug FROM new_rows",
      deleted: "old_rows",
    };
    for (const [name, from] of Object.entries(rows)) {
      await sql
        .raw(
          `CREATE FUNCTION manifest_notify_${name}() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            PERFORM pg_notify('${MANIFEST_CHANNEL}',
              TG_TABLE_SCHEMA || ' ' || current_setting('application_name') || E'\\n' || project_slug)
              FROM (SELECT project_slug FROM ${from}) AS touched GROUP BY project_slug;
            RETURN NULL;
          END $$`,
        )
        .execute(db);
    }
    for (const table of TABLES) {
      await sql.raw(`DROP TRIGGER ${table}_notify ON ${table}`).execute(db);
      await notifyManifestWritesByProject(db, table);
    }
  },
};
