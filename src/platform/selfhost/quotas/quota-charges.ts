import { type RawBuilder, sql } from "kysely";
import type { ManifestEntry } from "../../../core/manifest.js";
import { forEachPaced, Pacer } from "../../../shared/event-loop.js";
import { isCompressible, mediaTypeFor } from "../../../shared/media-types.js";
import type { SqlDialect } from "../state/platform-db.js";

/*
 * What a project's storage is charged (contract §1, "What a quota counts"). Rows cost what SQLite
 * stores for them, measured (docs/contract.md): a row of manifest_files keeps its path three times
 * (the table and two indexes), about 250 bytes plus 3.1 per byte of path up to some 900 bytes,
 * and once an index entry no longer fits a quarter of a page, an overflow page per copy (13.8 KB
 * for a 1,100-byte path). The charge is an upper bound of both. (Since issue 32 a row keeps its
 * path once, its manifest's distinct hashes a narrow row each in manifest_hashes: still below it.)
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

/**
 * contentCharge as opening a session counted it (OpenedSession): its fresh content's `bytes`, and
 * `compressibleSizes`, the size of each fresh hash a path names with a compressible type. The
 * same sum without a pass over the entries and a lookup of each hash (a twentieth of a
 * 100,000-entry prepare's time on the service's thread, issue 32).
 */
export function freshContentCharge(
  bytes: number,
  compressibleSizes: readonly number[],
  diskVariantsAbove: number,
): number {
  let total = bytes;
  for (const size of compressibleSizes) if (size > diskVariantsAbove) total += VARIANT_FACTOR * size;
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
 * The SQL expression, as text, of the larger of a manifest_hashes row's `compressible` and the one
 * an upsert of the same hash brought (compressible when one of its paths is), on the engine: for
 * a publish's rows and for the migration that fills the table from before.
 */
export function largerCompressibleSql(dialect: SqlDialect): string {
  return dialect === "postgres"
    ? "GREATEST(manifest_hashes.compressible, excluded.compressible)"
    : "MAX(manifest_hashes.compressible, excluded.compressible)";
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
  const bytes = byteLengthSql(dialect, "path");
  return (
    `COALESCE(SUM(${ROW_BYTES} + CASE WHEN ${bytes} > ${LONG_PATH_BYTES} THEN ${LONG_PATH_BYTE_COST} ` +
    `ELSE ${PATH_BYTE_COST} END * ${bytes}), 0)`
  );
}

/** The SQL expression of the UTF-8 bytes of a text column (ours, never input), on either engine. */
export function byteLengthSql(dialect: SqlDialect, column: string): string {
  return dialect === "postgres" ? `octet_length(${column})` : `length(CAST(${column} AS BLOB))`;
}
