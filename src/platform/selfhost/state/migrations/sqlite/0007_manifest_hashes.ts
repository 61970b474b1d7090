import { type Kysely, type Migration, sql } from "kysely";
import { fillManifestHashes } from "../manifest-hashes-backfill.js";
import { createIndexes, createTable, type TableDeclaration } from "./0001_platform-tables.js";

/*
 * Issue 32: a manifest's rows are written in the order of their paths and keep no index by hash
 * (a publish's copy of 50,000 rows in hash order into a table keyed by path, its two indexes by
 * hash scattered the other way, cost 0.5 to 0.9 s of the thread); what asks which manifests name
 * a hash reads `manifest_hashes`, a row a distinct hash of a manifest, written in hash order
 * (sites/manifest-hashes.ts). Filled from the manifests kept (manifest-hashes-backfill.ts), then
 * manifest_files' indexes by hash go. Each step is done again harmlessly after a crash (the
 * Migrator opens no transaction on SQLite).
 */

const MANIFEST_HASHES: TableDeclaration = {
  columns: [
    ["project_slug", "TEXT", "not null"],
    ["manifest_id", "TEXT", "not null"],
    ["hash", "TEXT", "not null"],
    ["compressible", "INTEGER", "not null default 0"],
  ],
  primaryKey: ["project_slug", "manifest_id", "hash"],
  indexes: { manifest_hashes_hash: ["hash"], manifest_hashes_project_hash: ["project_slug", "hash"] },
};

/** The table, its rows, and the indexes dropped, with `sliceRows` rows a slice of the fill. */
export function manifestHashesMigration(sliceRows?: number): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const { rows } = await sql<{
        name: string;
      }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'manifest_hashes'`.execute(db);
      if (rows.length === 0) await createTable(db, "manifest_hashes", MANIFEST_HASHES);
      else await createIndexes(db, "manifest_hashes", MANIFEST_HASHES);
      const inSlice = (work: (trx: Kysely<unknown>) => Promise<void>) => db.transaction().execute(work);
      await fillManifestHashes(db, "sqlite", { inSlice, ...(sliceRows && { sliceRows }) });
      await sql`DROP INDEX IF EXISTS manifest_files_hash`.execute(db);
      await sql`DROP INDEX IF EXISTS manifest_files_project_hash`.execute(db);
    },
  };
}

/** 0007_manifest_hashes as it runs: BACKFILL_SLICE_ROWS rows a slice. */
export const migration: Migration = manifestHashesMigration();
