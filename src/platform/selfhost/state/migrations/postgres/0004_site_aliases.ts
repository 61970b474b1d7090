import { type Kysely, type Migration, sql } from "kysely";
import { notifyManifestWrites } from "./manifest-notify.js";

/**
 * Stable preview names (deploy --alias), as on SQLite; the edge reads them, so their writes notify
 * like the other manifest tables'.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE TABLE site_aliases (
        project_slug TEXT NOT NULL,
        alias TEXT NOT NULL,
        revision_id TEXT NOT NULL,
        since BIGINT NOT NULL,
        PRIMARY KEY (project_slug, alias))`.execute(db);
    await notifyManifestWrites(db, "site_aliases");
  },
};
