import type { ManifestEntry } from "../../../core/manifest.js";
import type { Pacer } from "../../../shared/event-loop.js";
import { type Executor, slicesOf, type SqlDialect } from "../state/platform-db.js";
import { insertColumns } from "../state/column-insert.js";
import { insertParameters, parameterMark } from "../state/row-insert.js";
import { compressibleFlag } from "../quotas/quota-charges.js";

// Each distinct hash of an upload session, once (issue 31). A part is looked up by (session,
// hash): reading every manifest row naming the hash instead cost 0.9 s a part when 100,000 paths
// named one hash. `path` is a path naming it (the smallest: the extension the hash was made with),
// `size` the largest size declared for it, `media_type` the type the last upload declared for it
// (NULL until one does; its paths keep the type of their extension) and whether the edge
// compresses that type (NULL with it); `paths_compressible` 1 when one of its paths' extensions
// has a compressible type (what its manifest's hash is when no upload declared one,
// sites/manifest-hashes.ts: the session's rows are keyed by path, not found by hash).

/** A hash of a manifest: a path naming it, the largest size declared for it, its first entry. */
export interface HashRun {
  hash: string;
  path: string;
  size: number;
  /** Where its entries start in the entries it was read from (in hash order). */
  start: number;
}

/**
 * Each hash of `ordered` (entries in hash order, sortByHash) once, with its smallest path and
 * largest size: its entries are neighbours, so no table of the hashes is kept (lookups in one of
 * 100,000 hashes, twice an entry, were a twentieth of a prepare's time on this thread). Paced by
 * `pacer`, checked every 4,096 entries.
 */
export async function hashRunsOf(ordered: readonly ManifestEntry[], pacer: Pacer): Promise<HashRun[]> {
  const runs: HashRun[] = [];
  let run: HashRun | undefined;
  for (let i = 0; i < ordered.length; i++) {
    if ((i & 4095) === 4095 && pacer.due()) await pacer.next();
    const entry = ordered[i]!;
    if (run === undefined || entry.hash !== run.hash) {
      run = { hash: entry.hash, path: entry.path, size: entry.size, start: i };
      runs.push(run);
    } else {
      if (entry.path < run.path) run.path = entry.path;
      if (entry.size > run.size) run.size = entry.size;
    }
  }
  return runs;
}

/**
 * Writes the rows of `runs`, 5,000 a statement (a slice of prepare's in one), without Kysely's
 * compiler (column-insert.ts); `compressible[i]`: runs[i]'s paths_compressible.
 */
export async function insertSessionHashes(
  trx: Executor,
  dialect: SqlDialect,
  sessionId: string,
  runs: readonly HashRun[],
  compressible: readonly number[],
): Promise<void> {
  for (let from = 0; from < runs.length; from += 5_000) {
    const slice = runs.slice(from, from + 5_000);
    // By column: no array a row (insertColumns).
    const count = slice.length;
    const hashes = new Array<string>(count);
    const paths = new Array<string>(count);
    const sizes = new Array<number>(count);
    for (let i = 0; i < count; i++) {
      const run = slice[i]!;
      hashes[i] = run.hash;
      paths[i] = run.path;
      sizes[i] = run.size;
    }
    // No ON CONFLICT: each hash is one run, written by one slice (insertAssets says why).
    await insertColumns(
      trx,
      dialect,
      "INSERT INTO session_hashes (session_id, hash, path, size, media_type, compressible, paths_compressible)",
      ["text", "text", "text", "bigint", "text", "integer", "integer"],
      count,
      [
        { same: sessionId },
        hashes,
        paths,
        sizes,
        { same: null },
        { same: null },
        compressible.slice(from, from + count),
      ],
    );
  }
}

/** Records the media types a bucket's parts declared for their hashes (the last one of each kept). */
export async function declareMediaTypes(
  trx: Executor,
  dialect: SqlDialect,
  sessionId: string,
  mediaTypes: { hash: string; mediaType: string }[],
): Promise<void> {
  // One row a hash, by primary key: never every path naming it (100,000 rows for one part).
  const declared = [...new Map(mediaTypes.map((m) => [m.hash, m.mediaType]))];
  for (const slice of slicesOf(declared, 1_000)) {
    // Its text kept by shape, not compiled by Kysely (row-insert.ts): 1,000 rows of three values
    // as nodes cost this thread more than SQLite's work on them (issue 32). Whether the edge
    // compresses a type goes with it (its variants count in the quotas).
    const parameters = new Array<unknown>(slice.length * 3 + 1);
    let at = 0;
    for (const [hash, mediaType] of slice) {
      parameters[at++] = hash;
      parameters[at++] = mediaType;
      parameters[at++] = compressibleFlag(mediaType);
    }
    parameters[at] = sessionId;
    await insertParameters(
      trx,
      dialect,
      "WITH declared (hash, media_type, compressible) AS (",
      slice.length,
      3,
      parameters,
      `) UPDATE session_hashes SET media_type = declared.media_type,
        compressible = CAST(declared.compressible AS INTEGER)
      FROM declared
      WHERE session_hashes.session_id = ${parameterMark(dialect, at + 1)} AND session_hashes.hash = declared.hash`,
    );
  }
}
