import { type Kysely, type Migration, sql } from "kysely";
import { MANIFEST_CHANNEL } from "../../platform-tables.js";
import { notifyManifestWrites } from "./manifest-notify.js";

/**
 * Every write of what the edge reads notifies, once per transaction and at its commit, the edges
 * of every process (ManifestListener): the payload names the schema written and the writing
 * connection's application_name (a process skips its own). The tables the edge read then; later
 * ones get their trigger in the migration that creates them.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE FUNCTION manifest_notify() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('${MANIFEST_CHANNEL}',
            TG_TABLE_SCHEMA || ' ' || current_setting('application_name'));
          RETURN NULL;
        END $$`,
      )
      .execute(db);
    for (const table of ["sites", "site_hosts", "revisions", "revision_files", "revision_rules"] as const) {
      await notifyManifestWrites(db, table);
    }
  },
};
