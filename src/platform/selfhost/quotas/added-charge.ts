import { sql } from "kysely";
import { type Executor, firstOf, type SqlDialect } from "../state/platform-db.js";
import { REVISION_BYTES, VARIANT_FACTOR } from "./quota-charges.js";

// What a publish adds to its project's kept charge (kept-charge.ts sums the whole of it), found
// through what the publish wrote: a project's charge recorded exact before it, plus this, is the
// full sum after it (quota-gate.ts), at a cost in proportion to the change, not to the project.

/** What a publish added to its project: a revision, and the manifest written for it if any. */
export interface AddedRevision {
  revisionId: string;
  /** The manifest written for it (none: it names one the project had), and how many rows it has. */
  manifest?: { id: string; rows: number };
}

/**
 * The most rows of a manifest written for a publish whose charge is found through them, in one
 * statement (as many as keptCharge sums in one, a few milliseconds of SQLite); a larger one is a
 * change of a quarter of the site or more, and its publish sums the project's charge whole, paced.
 */
export const MAX_ADDED_ROWS = 2048;

/** True when `added` is small enough for addedCharge (else the publish sums the whole charge). */
export function addsLittle(added: AddedRevision): boolean {
  return (added.manifest?.rows ?? 0) <= MAX_ADDED_ROWS;
}

/**
 * What the revision `added` adds to its project's kept charge, with its rows in the database (in
 * the publish's transaction): its rows' charge, parsed rules and fixed cost, the content of its
 * manifest's hashes that no other manifest of the project holds, and the variants of those of its
 * hashes over `diskVariantsAbove` bytes that it has compressible and no other manifest does (each
 * a seek through the index on manifest_files(project_slug, hash); contract §1's distinct content
 * and variants, as keptCharge counts them over every row of the project, tombstones included).
 * The manifest's rows are read by its key, apart (MATERIALIZED): grouped where they were read,
 * SQLite read them through the index on (project_slug, hash), every row of the project (9.5 ms
 * against 0.9 for 300 rows of a 10,000-file project).
 */
export async function addedCharge(
  trx: Executor,
  dialect: SqlDialect,
  projectSlug: string,
  added: AddedRevision,
  diskVariantsAbove: number,
): Promise<number> {
  const rulesBytes = sql.raw(dialect === "postgres" ? "octet_length(rules)" : "length(CAST(rules AS BLOB))");
  const manifestId = added.manifest?.id ?? null;
  const others = sql`o.project_slug = ${projectSlug} AND o.hash = b.hash AND o.manifest_id <> ${manifestId}`;
  const row = await firstOf(
    trx,
    sql<{
      content_bytes: number | string;
      variant_bytes: number | string;
      row_bytes: number | string | null;
      rule_bytes: number | string;
    }>`WITH added AS MATERIALIZED (SELECT hash, compressible FROM manifest_files
          WHERE project_slug = ${projectSlug} AND manifest_id = ${manifestId})
      SELECT c.*,
        (SELECT row_bytes FROM revisions WHERE project_slug = ${projectSlug}
          AND revision_id = ${added.revisionId}) AS row_bytes,
        (SELECT CAST(COALESCE(SUM(${rulesBytes}), 0) AS BIGINT) FROM revision_rules
          WHERE project_slug = ${projectSlug} AND revision_id = ${added.revisionId}) AS rule_bytes
      FROM (SELECT
          CAST(COALESCE(SUM(CASE WHEN NOT EXISTS (SELECT 1 FROM manifest_files o WHERE ${others})
            THEN b.size ELSE 0 END), 0) AS BIGINT) AS content_bytes,
          CAST(COALESCE(SUM(CASE WHEN b.size > CAST(${diskVariantsAbove} AS BIGINT) AND n.compressible = 1
              AND NOT EXISTS (SELECT 1 FROM manifest_files o WHERE ${others} AND o.compressible = 1)
            THEN b.size ELSE 0 END), 0) AS BIGINT) AS variant_bytes
        FROM (SELECT hash, MAX(compressible) AS compressible FROM added GROUP BY hash) AS n
          JOIN blobs b ON b.hash = n.hash) AS c`,
  );
  const { content_bytes, variant_bytes, row_bytes, rule_bytes } = row!;
  // No revision row: nothing was added (a publish run again records none).
  if (row_bytes === null) return 0;
  return (
    Number(content_bytes) +
    VARIANT_FACTOR * Number(variant_bytes) +
    Number(row_bytes) +
    Number(rule_bytes) +
    REVISION_BYTES
  );
}
