import { type RawBuilder, sql } from "kysely";
import { Pacer } from "../../../shared/event-loop.js";
import { type Executor, firstOf, type SqlDialect } from "../state/platform-db.js";
import { byteLengthSql, REVISION_BYTES, VARIANT_FACTOR } from "./quota-charges.js";

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
 * Hashes of the new manifest a statement on SQLite (as many as keptCharge sums in one, a few
 * milliseconds of its thread); PostgreSQL reads them all in one, apart from this thread.
 */
export const ADDED_SLICE_ROWS = 2048;

/**
 * What the revision `added` adds to its project's kept charge, with its rows in the database (in
 * the publish's transaction): its rows' charge, parsed rules and fixed cost, the content of its
 * manifest's hashes that no other manifest of the project holds, and the variants of those of its
 * hashes over `diskVariantsAbove` bytes that it has compressible and no other manifest does (each
 * a seek through the index on manifest_hashes(project_slug, hash); contract §1's distinct content
 * and variants, as keptCharge counts them over every manifest of the project). On SQLite the
 * manifest's hashes are read `sliceRows` a statement, in hash order, the event loop free between
 * them when `pacer` says.
 */
export async function addedCharge(
  trx: Executor,
  dialect: SqlDialect,
  projectSlug: string,
  added: AddedRevision,
  diskVariantsAbove: number,
  pacer: Pacer = new Pacer(),
  sliceRows: number = ADDED_SLICE_ROWS,
): Promise<number> {
  const manifestId = added.manifest?.id ?? null;
  const sliced = dialect === "sqlite" && (added.manifest?.rows ?? 0) > sliceRows;
  const manifestHashes = sql`project_slug = ${projectSlug} AND manifest_id = ${manifestId}`;
  let charge = 0;
  let after: string | undefined;
  for (;;) {
    let upTo: string | undefined;
    if (sliced) {
      const last = await firstOf(
        trx,
        sql<{ hash: string }>`SELECT hash FROM manifest_hashes WHERE ${manifestHashes}
          ${after === undefined ? sql`` : sql`AND hash > ${after}`} ORDER BY hash LIMIT 1 OFFSET ${sliceRows - 1}`,
      );
      upTo = last?.hash;
    }
    const slice = { after, upTo };
    const row = await firstOf(
      trx,
      sliceCharge(dialect, projectSlug, added, manifestId, slice, diskVariantsAbove),
    );
    const { content_bytes, variant_bytes } = row!;
    charge += Number(content_bytes) + VARIANT_FACTOR * Number(variant_bytes);
    if (after === undefined) {
      // No revision row: nothing was added (a publish run again records none).
      if (row!.row_bytes === null) return 0;
      charge += Number(row!.row_bytes) + Number(row!.rule_bytes) + REVISION_BYTES;
    }
    if (upTo === undefined) return charge;
    after = upTo;
    if (pacer.due()) await pacer.next();
  }
}

/**
 * The content and variants the manifest's hashes after `after` up to `upTo` (each end open when
 * undefined) add, and with the first slice the revision's rows, rules and fixed cost.
 */
function sliceCharge(
  dialect: SqlDialect,
  projectSlug: string,
  added: AddedRevision,
  manifestId: string | null,
  slice: { after: string | undefined; upTo: string | undefined },
  diskVariantsAbove: number,
): RawBuilder<{
  content_bytes: number | string;
  variant_bytes: number | string;
  row_bytes?: number | string | null;
  rule_bytes?: number | string;
}> {
  const { after, upTo } = slice;
  const range = sql`${after === undefined ? sql`` : sql`AND n.hash > ${after}`}
    ${upTo === undefined ? sql`` : sql`AND n.hash <= ${upTo}`}`;
  const others = sql`o.project_slug = ${projectSlug} AND o.hash = b.hash AND o.manifest_id <> ${manifestId}`;
  const rulesBytes = sql.raw(byteLengthSql(dialect, "rules"));
  const revision =
    after === undefined
      ? sql`, (SELECT row_bytes FROM revisions WHERE project_slug = ${projectSlug}
            AND revision_id = ${added.revisionId}) AS row_bytes,
          (SELECT CAST(COALESCE(SUM(${rulesBytes}), 0) AS BIGINT) FROM revision_rules
            WHERE project_slug = ${projectSlug} AND revision_id = ${added.revisionId}) AS rule_bytes`
      : sql``;
  return sql`SELECT c.* ${revision} FROM (SELECT
        CAST(COALESCE(SUM(CASE WHEN NOT EXISTS (SELECT 1 FROM manifest_hashes o WHERE ${others})
          THEN b.size ELSE 0 END), 0) AS BIGINT) AS content_bytes,
        CAST(COALESCE(SUM(CASE WHEN b.size > CAST(${diskVariantsAbove} AS BIGINT) AND n.compressible = 1
            AND NOT EXISTS (SELECT 1 FROM manifest_hashes o WHERE ${others} AND o.compressible = 1)
          THEN b.size ELSE 0 END), 0) AS BIGINT) AS variant_bytes
      FROM manifest_hashes n JOIN blobs b ON b.hash = n.hash
      WHERE n.project_slug = ${projectSlug} AND n.manifest_id = ${manifestId} ${range}) AS c`;
}
