import { type RawBuilder, sql } from "kysely";
import type { ManifestEntry } from "../../../core/manifest.js";
import { forEachPaced, Pacer } from "../../../shared/event-loop.js";
import { isCompressible, mediaTypeFor } from "../../../shared/media-types.js";
import { type Executor, firstOf, type SqlDialect } from "../state/platform-db.js";

/*
 * What a project's storage is charged (contract §1, "What a quota counts"). Rows cost what SQLite
 * stores for them, measured (docs/contract.md): a row of manifest_files keeps its path three times
 * (the table and two indexes), about 250 bytes plus 3.1 per byte of path up to some 900 bytes,
 * and once an index entry no longer fits a quarter of a page, an overflow page per copy (13.8 KB
 * for a 1,100-byte path). The charge is an upper bound of both.
 */

/** Charged for each manifest row (a path of a kept revision or of an open session). */
export const ROW_BYTES = 256;
/** Charged per byte of a row's path; paths longer than LONG_PATH_BYTES cost LONG_PATH_BYTE_COST. */
export const PATH_BYTE_COST = 4;
export const LONG_PATH_BYTES = 768;
export const LONG_PATH_BYTE_COST = 16;
/** Charged for each kept revision (its rows in both databases), besides its files and rules. */
export const REVISION_BYTES = 1024;
/** A compressible file the edge keeps variants of on disk counts this many times its size more. */
export const VARIANT_FACTOR = 2;

/** The charge of one manifest row: ROW_BYTES and its path's UTF-8 bytes at their rate. */
export function rowCharge(path: string): number {
  const bytes = Buffer.byteLength(path);
  return ROW_BYTES + bytes * (bytes > LONG_PATH_BYTES ? LONG_PATH_BYTE_COST : PATH_BYTE_COST);
}

/** The charge of a manifest's rows, paced by `pacer` (100,000 rows are a few milliseconds). */
export async function rowsCharge(entries: readonly ManifestEntry[], pacer: Pacer): Promise<number> {
  let total = 0;
  await forEachPaced(entries, pacer, (entry) => (total += rowCharge(entry.path)));
  return total;
}

/**
 * The charge a manifest's content adds when `fresh` (hash to largest declared size) is the content
 * the project does not keep yet: each fresh hash once at its size, and VARIANT_FACTOR times more
 * when a path names it with a compressible type (by its extension, as the upload service takes
 * it without a Content-Type) and it is larger than `diskVariantsAbove`. Paced by `pacer`: a type
 * for each of 100,000 paths took 140 ms and more of the thread in one go (issue 31).
 */
export async function contentCharge(
  entries: readonly ManifestEntry[],
  fresh: ReadonlyMap<string, number>,
  diskVariantsAbove: number,
  pacer: Pacer,
): Promise<number> {
  let total = 0;
  const compressed = new Set<string>();
  for (const [, size] of fresh) total += size;
  await forEachPaced(entries, pacer, (entry) => {
    const size = fresh.get(entry.hash);
    if (size === undefined || size <= diskVariantsAbove || compressed.has(entry.hash)) return;
    if (!isCompressible(mediaTypeFor(entry.path))) return;
    compressed.add(entry.hash);
    total += VARIANT_FACTOR * size;
  });
  return total;
}

/** The charge of a whole manifest as one new revision, as if the project kept nothing else. */
export async function manifestCharge(
  entries: readonly ManifestEntry[],
  diskVariantsAbove: number,
  pacer: Pacer,
): Promise<number> {
  const sizes = new Map<string, number>();
  await forEachPaced(entries, pacer, (entry) =>
    sizes.set(entry.hash, Math.max(sizes.get(entry.hash) ?? 0, entry.size)),
  );
  return (
    REVISION_BYTES +
    (await rowsCharge(entries, pacer)) +
    (await contentCharge(entries, sizes, diskVariantsAbove, pacer))
  );
}

/** 1 for a media type whose files the edge compresses (manifest_files.compressible). */
export function compressibleFlag(mediaType: string): number {
  return isCompressible(mediaType) ? 1 : 0;
}

/**
 * The SQL expression of the charge of the manifest rows `table` holds (its `path` column), summed;
 * revisions keep theirs (`revisions.row_bytes`, written at publish) so that counting a project
 * never reads its rows again. The rates are our constants, written into the statement (a CASE of
 * parameters has no type on PostgreSQL).
 */
export function rowBytesSum(dialect: SqlDialect): RawBuilder<number> {
  return sql.raw(rowBytesSumSql(dialect));
}

/** `rowBytesSum` as text, for the migrations that count the rows of revisions from before. */
export function rowBytesSumSql(dialect: SqlDialect): string {
  const bytes = dialect === "postgres" ? "octet_length(path)" : "length(CAST(path AS BLOB))";
  return (
    `COALESCE(SUM(${ROW_BYTES} + CASE WHEN ${bytes} > ${LONG_PATH_BYTES} THEN ${LONG_PATH_BYTE_COST} ` +
    `ELSE ${PATH_BYTE_COST} END * ${bytes}), 0)`
  );
}

/**
 * Bounds of the ranges of hashes a project's content is summed over, a statement each: 64 ranges
 * by their first two hex digits. One statement over every blob of a project held SQLite's thread
 * (the service's) 35 to 105 ms for 100,000 blobs (issue 31); a range is a sixty-fourth of that.
 */
const HASH_BOUNDS: readonly string[] = Array.from({ length: 63 }, (_, i) =>
  ((i + 1) * 4).toString(16).padStart(2, "0"),
);

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
 * one to the next through the index on (project_slug, hash), a seek each: reading every row of the
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
    const hashes = sql`SELECT hash FROM manifest_files
      WHERE project_slug = ${projectSlug} AND ${hashRange("hash", index, ranges)}`;
    return { before: sql``, hashes };
  }
  const before = sql`WITH RECURSIVE kept(hash) AS (
      SELECT MIN(hash) FROM manifest_files WHERE project_slug = ${projectSlug} AND ${hashRange("hash", index, ranges)}
      UNION ALL
      SELECT (SELECT MIN(f.hash) FROM manifest_files f WHERE f.project_slug = ${projectSlug}
          AND f.hash > kept.hash AND ${hashRange("f.hash", index, ranges)})
        FROM kept WHERE kept.hash IS NOT NULL)`;
  return { before, hashes: sql`SELECT hash FROM kept WHERE hash IS NOT NULL` };
}

/**
 * What a project's kept revisions are charged now: their distinct content (variants included),
 * their rows (as recorded at publish), their parsed site rules and a fixed cost each. The content
 * is read through the index of the project's hashes, on SQLite a range of hashes a statement, the
 * event loop free between them when `pacer` says a slice is due; only blobs large enough to have variants on
 * disk look at their rows' types (a few).
 */
export async function keptCharge(
  trx: Executor,
  dialect: SqlDialect,
  projectSlug: string,
  diskVariantsAbove: number,
  pacer: Pacer = new Pacer(),
): Promise<number> {
  let contentBytes = 0;
  let variantBytes = 0;
  // On PostgreSQL, which works apart from this thread, one statement over the whole range.
  const ranges = dialect === "postgres" ? 1 : HASH_BOUNDS.length + 1;
  for (let index = 0; index < ranges; index++) {
    const { before, hashes } = keptHashes(dialect, projectSlug, index, ranges);
    // One pass over the range's distinct blobs; the rows of one are looked at only when it is
    // large enough to have variants on disk (measured: as fast as counting content alone was).
    const row = await firstOf(
      trx,
      sql<{ content_bytes: number | string; variant_bytes: number | string }>`${before} SELECT
          CAST(COALESCE(SUM(b.size), 0) AS BIGINT) AS content_bytes,
          CAST(COALESCE(SUM(CASE WHEN b.size > CAST(${diskVariantsAbove} AS BIGINT) AND EXISTS (
              SELECT 1 FROM manifest_files f WHERE f.project_slug = ${projectSlug} AND f.hash = b.hash
                AND f.compressible = 1) THEN b.size ELSE 0 END), 0) AS BIGINT) AS variant_bytes
        FROM blobs b WHERE ${hashRange("b.hash", index, ranges)} AND b.hash IN (${hashes})`,
    );
    contentBytes += Number(row!.content_bytes);
    variantBytes += Number(row!.variant_bytes);
    if (pacer.due()) await pacer.next();
  }
  const rulesBytes = sql.raw(dialect === "postgres" ? "octet_length(rules)" : "length(CAST(rules AS BLOB))");
  const row = await firstOf(
    trx,
    sql<{
      row_bytes: number | string;
      rule_bytes: number | string;
      revision_count: number | string;
    }>`SELECT (SELECT CAST(COALESCE(SUM(row_bytes), 0) AS BIGINT) FROM revisions
          WHERE project_slug = ${projectSlug}) AS row_bytes,
        (SELECT CAST(COALESCE(SUM(${rulesBytes}), 0) AS BIGINT) FROM revision_rules
          WHERE project_slug = ${projectSlug}) AS rule_bytes,
        (SELECT COUNT(*) FROM revisions WHERE project_slug = ${projectSlug}) AS revision_count`,
  );
  const { row_bytes, rule_bytes, revision_count } = row!;
  return (
    contentBytes +
    VARIANT_FACTOR * variantBytes +
    Number(row_bytes) +
    Number(rule_bytes) +
    REVISION_BYTES * Number(revision_count)
  );
}
