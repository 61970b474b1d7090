import { type Kysely, type Migration, sql } from "kysely";
import { fillManifestHashes } from "../manifest-hashes-backfill.js";

/**
 * A manifest's distinct hashes in a table of their own, manifest_files without indexes by hash
 * (issue 32), as on SQLite (sqlite/0007_manifest_hashes.ts), in the Migrator's one transaction.
 * No NOTIFY trigger: the edge never reads it (a manifest is reached through a `revisions` row,
 * whose writes notify, platform-tables.ts).
 */
export function manifestHashesMigration(sliceRows?: number): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE manifest_hashes (
        project_slug TEXT NOT NULL,
        manifest_id TEXT NOT NULL,
        hash TEXT NOT NULL,
        compressible INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (project_slug, manifest_id, hash)
      )`.execute(db);
      await sql`CREATE INDEX manifest_hashes_hash ON manifest_hashes (hash)`.execute(db);
      await sql`CREATE INDEX manifest_hashes_project_hash ON manifest_hashes (project_slug, hash)`.execute(
        db,
      );
      await fillManifestHashes(db, "postgres", {
        inSlice: (work) => work(db),
        ...(sliceRows && { sliceRows }),
      });
      await sql`DROP INDEX manifest_files_hash`.execute(db);
      await sql`DROP INDEX manifest_files_project_hash`.execute(db);
    },
  };
}

/** 0013_manifest_hashes as it runs. */
export const migration: Migration = manifestHashesMigration();
