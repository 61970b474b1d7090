import { type RawBuilder, sql } from "kysely";
import { Pacer } from "../../../shared/event-loop.js";
import { type Executor, firstOf, type SqlDialect } from "../state/platform-db.js";
import { byteLengthSql, REVISION_BYTES, VARIANT_FACTOR } from "./quota-charges.js";

// What a project's kept revisions are charged now, read from the database (quota-charges.ts has
// the rates and what a manifest not yet written is charged).

/**
 * Bounds of the ranges of hashes a project's content is summed over, a statement each: 64 ranges
 * by their first two hex digits. One statement over every blob of a project held SQLite's thread
 * (the service's) 35 to 105 ms for 100,000 blobs (issue 31); a range is a sixty-fourth of that.
 */
const HASH_BOUNDS: readonly string[] = Array.from({ length: 63 }, (_, i) =>
  ((i + 1) * 4).toString(16).padStart(2, "0"),
);

/**
 * A project with fewer manifest hashes (rows of manifest_hashes) than this is summed in one statement on SQLite (a few
 * milliseconds at most): the 64 ranges, 65 statements at every prepare and publish, were 14% of
 * the server's CPU for a one-page site republished ten times a second (BENCHMARKS.md).
 */
export const ONE_RANGE_ROWS = 2048;

/**
 * How many ranges of hashes a project's content is summed over: one on PostgreSQL (apart from
 * this thread) and for a small project, found by counting at most ONE_RANGE_ROWS of its rows.
 */
async function rangesFor(
  trx: Executor,
  dialect: SqlDialect,
  projectSlug: string,
  oneRangeRows: number,
): Promise<number> {
  if (dialect === "postgres") return 1;
  const row = await firstOf(
    trx,
    sql<{ n: number }>`SELECT COUNT(*) AS n FROM (SELECT 1 FROM manifest_hashes
      WHERE project_slug = ${projectSlug} LIMIT ${oneRangeRows})`,
  );
  return Number(row!.n) < oneRangeRows ? 1 : HASH_BOUNDS.length + 1;
}

/**
 * `column` within the `index`-th of `ranges` ranges of HASH_BOUNDS (the first and last are open;
 * a single range is every hash).
 */
function hashRange(column: string, index: number, ranges: number): RawBuilder<unknown> {
  const ref = sql.ref(column);
  if (ranges === 1) return sql`${ref} IS NOT NULL`;
  const low = HASH_BOUNDS[index - 1];
  const high = HASH_BOUNDS[index];
  if (low === undefined) return sql`${ref} < ${high}`;
  if (high === undefined) return sql`${ref} >= ${low}`;
  return sql`${ref} >= ${low} AND ${ref} < ${high}`;
}

/**
 * The distinct hashes of a project's revisions within the `index`-th range, as `hashes` (a
 * subquery) after `before` (a WITH clause, or nothing). On SQLite they are found by skipping from
 * one to the next through the index on manifest_hashes(project_slug, hash), a seek each: reading every row of the
 * range for them, a revision of 20,000 paths naming one file, kept ten times, cost 200,000 rows
 * (up to 115 ms of the thread, issue 31). PostgreSQL reads them apart from this thread.
 */
function keptHashes(
  dialect: SqlDialect,
  projectSlug: string,
  index: number,
  ranges: number,
): { before: RawBuilder<unknown>; hashes: RawBuilder<unknown> } {
  if (dialect === "postgres") {
    const hashes = sql`SELECT hash FROM manifest_hashes
      WHERE project_slug = ${projectSlug} AND ${hashRange("hash", index, ranges)}`;
    return { before: sql``, hashes };
  }
  const before = sql`WITH RECURSIVE kept(hash) AS (
      SELECT MIN(hash) FROM manifest_hashes WHERE project_slug = ${projectSlug} AND ${hashRange("hash", index, ranges)}
      UNION ALL
      SELECT (SELECT MIN(f.hash) FROM manifest_hashes f WHERE f.project_slug = ${projectSlug}
          AND f.hash > kept.hash AND ${hashRange("f.hash", index, ranges)})
        FROM kept WHERE kept.hash IS NOT NULL)`;
  return { before, hashes: sql`SELECT hash FROM kept WHERE hash IS NOT NULL` };
}

/**
 * What a project's kept revisions are charged now: their distinct content (variants included),
 * their rows (as recorded at publish), their parsed site rules and a fixed cost each. The content
 * is read through the index of the project's hashes, on SQLite a range of hashes a statement, the
 * event loop free between them when `pacer` says a slice is due (one statement for a project of
 * fewer than `oneRangeRows` rows); only blobs large enough to have variants on disk look at their
 * rows' types (a few).
 */
export async function keptCharge(
  trx: Executor,
  dialect: SqlDialect,
  projectSlug: string,
  diskVariantsAbove: number,
  pacer: Pacer = new Pacer(),
  oneRangeRows: number = ONE_RANGE_ROWS,
): Promise<number> {
  let contentBytes = 0;
  let variantBytes = 0;
  const rulesBytes = sql.raw(byteLengthSql(dialect, "rules"));
  // The revisions' rows, rules and count, read with the last range's content (one statement in all
  // for a project summed in one range).
  const revisionCharges = sql`(SELECT CAST(COALESCE(SUM(row_bytes), 0) AS BIGINT) FROM revisions
        WHERE project_slug = ${projectSlug}) AS row_bytes,
      (SELECT CAST(COALESCE(SUM(${rulesBytes}), 0) AS BIGINT) FROM revision_rules
        WHERE project_slug = ${projectSlug}) AS rule_bytes,
      (SELECT COUNT(*) FROM revisions WHERE project_slug = ${projectSlug}) AS revision_count`;
  let revisions: { row_bytes: number | string; rule_bytes: number | string; revision_count: number | string };
  const ranges = await rangesFor(trx, dialect, projectSlug, oneRangeRows);
  for (let index = 0; ; index++) {
    const { before, hashes } = keptHashes(dialect, projectSlug, index, ranges);
    const last = index === ranges - 1;
    // One pass over the range's distinct blobs; the rows of one are looked at only when it is
    // large enough to have variants on disk (measured: as fast as counting content alone was).
    const row = await firstOf(
      trx,
      sql<{
        content_bytes: number | string;
        variant_bytes: number | string;
        row_bytes: number | string;
        rule_bytes: number | string;
        revision_count: number | string;
      }>`${before} SELECT c.* ${last ? sql`, ${revisionCharges}` : sql``} FROM (SELECT
          CAST(COALESCE(SUM(b.size), 0) AS BIGINT) AS content_bytes,
          CAST(COALESCE(SUM(CASE WHEN b.size > CAST(${diskVariantsAbove} AS BIGINT) AND EXISTS (
              SELECT 1 FROM manifest_hashes f WHERE f.project_slug = ${projectSlug} AND f.hash = b.hash
                AND f.compressible = 1) THEN b.size ELSE 0 END), 0) AS BIGINT) AS variant_bytes
        FROM blobs b WHERE ${hashRange("b.hash", index, ranges)} AND b.hash IN (${hashes})) AS c`,
    );
    contentBytes += Number(row!.content_bytes);
    variantBytes += Number(row!.variant_bytes);
    if (last) {
      revisions = row!;
      break;
    }
    if (pacer.due()) await pacer.next();
  }
  const { row_bytes, rule_bytes, revision_count } = revisions;
  return (
    contentBytes +
    VARIANT_FACTOR * variantBytes +
    Number(row_bytes) +
    Number(rule_bytes) +
    REVISION_BYTES * Number(revision_count)
  );
}
