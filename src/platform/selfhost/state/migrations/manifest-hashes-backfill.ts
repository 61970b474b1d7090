import { type Kysely, sql } from "kysely";
import { largerCompressibleSql } from "../../quotas/quota-charges.js";
import type { SqlDialect } from "../platform-db.js";
import type { BackfillOptions } from "./manifest-backfill.js";
import { BACKFILL_SLICE_ROWS } from "./manifest-backfill.js";

/*
 * manifest_hashes for the manifests kept when it was added (sqlite/0007, postgres/0013): each
 * manifest's distinct hashes of its rows not removed, from manifest_files. In slices of
 * `sliceRows` rows in the order of manifest_files' key (a statement's bound, as
 * manifest-backfill.ts says why), each found by one read of its last key; a manifest spanning two
 * slices has a hash of both written twice, kept once (compressible if either was). Safe on a
 * crash: on PostgreSQL the Migrator's one transaction undoes it whole; on SQLite each slice is a
 * transaction of its own and the migration runs again from the start, every row it wrote before
 * kept once more by the same conflict rule.
 */

/** Fills `manifest_hashes` from every row of `manifest_files`. */
export async function fillManifestHashes(
  db: Kysely<unknown>,
  dialect: SqlDialect,
  options: BackfillOptions,
): Promise<void> {
  const sliceRows = options.sliceRows ?? BACKFILL_SLICE_ROWS;
  const key = sql`(project_slug, manifest_id, path)`;
  type Key = { project_slug: string; manifest_id: string; path: string };
  let after: Key | undefined;
  for (;;) {
    const above = after
      ? sql`${key} > (${after.project_slug}, ${after.manifest_id}, ${after.path})`
      : sql`1 = 1`;
    const { rows } = await sql<Key>`SELECT project_slug, manifest_id, path FROM manifest_files
      WHERE ${above} ORDER BY project_slug, manifest_id, path LIMIT 1 OFFSET ${sliceRows - 1}`.execute(db);
    const last = rows[0];
    const below = last ? sql`AND ${key} <= (${last.project_slug}, ${last.manifest_id}, ${last.path})` : sql``;
    await options.inSlice(async (trx) => {
      await sql`INSERT INTO manifest_hashes (project_slug, manifest_id, hash, compressible)
        SELECT project_slug, manifest_id, hash, MAX(compressible) FROM manifest_files
        WHERE ${above} ${below} AND removed = 0 GROUP BY project_slug, manifest_id, hash
        ON CONFLICT (project_slug, manifest_id, hash)
          DO UPDATE SET compressible = ${sql.raw(largerCompressibleSql(dialect))}`.execute(trx);
    });
    if (last === undefined) return;
    after = last;
  }
}
