import type { PathOrder } from "../../../core/checked-manifest.js";
import { comparePaths, type ManifestEntry } from "../../../core/manifest.js";
import type { Pacer } from "../../../shared/event-loop.js";
import { sortPaced } from "../../../shared/paced-sort.js";

// A session's rows are keyed by path (session_assets) and written in that order, as a publish
// copies them into manifest_files (keyed by path): rows written out of their key's order rewrite
// pages all over the table at every commit (issue 32).

/**
 * The places of `entries` in the order of their paths (as JavaScript compares strings), paced by
 * `pacer`: on this thread, for what no worker sorted (a small manifest, a delta's rows). SQLite
 * orders keys by their UTF-8 bytes, which differs from this order only between paths with
 * characters above U+FFFF and ones in U+E000 to U+FFFF: such rows land out of place (a page each
 * at most), which changes where they are written, not what.
 */
export async function placesByPath(entries: readonly ManifestEntry[], pacer: Pacer): Promise<Uint32Array> {
  const places = Array.from({ length: entries.length }, (_, i) => i);
  const sorted = await sortPaced(places, (a, b) => comparePaths(entries[a]!, entries[b]!), pacer);
  return Uint32Array.from(sorted);
}

/**
 * Whether `places` are the places of `ordered` in some order, each once, and `ordered` holds
 * `given`'s entries as given (sortByHash found them in hash order already): so the caller's path
 * order (`places`, of `given`) is one of `ordered`. One look at each, paced; a wrong one would drop
 * or repeat a session's row.
 */
export async function placesFit(
  places: Uint32Array,
  ordered: readonly ManifestEntry[],
  given: readonly ManifestEntry[],
  pacer: Pacer,
): Promise<boolean> {
  const count = ordered.length;
  if (given.length !== count || places.length !== count) return false;
  const seen = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    if ((i & 4095) === 4095 && pacer.due()) await pacer.next();
    const place = places[i]!;
    if (ordered[i] !== given[i] || place >= count || seen[place] === 1) return false;
    seen[place] = 1;
  }
  return true;
}

/**
 * Whether `byPath` is of `given` as `ordered` holds it: its places fit (placesFit), and it holds a
 * hash, a size and a path for each of them. Its rows are not compared with the entries: reading
 * the entries in path order is what it spares (the worker that made both is tested for that).
 */
export async function pathOrderFits(
  byPath: PathOrder,
  ordered: readonly ManifestEntry[],
  given: readonly ManifestEntry[],
  pacer: Pacer,
): Promise<boolean> {
  const count = ordered.length;
  if (byPath.hashes.length !== count * 32 || byPath.sizes.length !== count) return false;
  if (!(await placesFit(byPath.places, ordered, given, pacer))) return false;
  // One NUL between each two paths, none after the last.
  let separators = 0;
  for (let at = byPath.paths.indexOf("\0"); at >= 0; at = byPath.paths.indexOf("\0", at + 1)) {
    if ((++separators & 4095) === 4095 && pacer.due()) await pacer.next();
  }
  return count === 0 ? byPath.paths === "" : separators === count - 1;
}

/** The columns of consecutive rows of a session (session_assets) in path order. */
export interface RowColumns {
  paths: string[];
  hashes: string[];
  sizes: number[];
}

/**
 * A session's rows in path order, read a slice at a time from the first: from the caller's
 * strings laid out in that order (`order` a PathOrder, which pathOrderFits judged), else off
 * `ordered` by places (`order` the places: a small manifest's, a delta's, or sorted on this thread).
 */
export class PathOrderRows {
  /** The places of `ordered` in path order. */
  readonly places: Uint32Array;
  private readonly byPath: PathOrder | undefined;
  /** The next row, and where its path starts in byPath.paths. */
  private row = 0;
  private pathStart = 0;

  constructor(
    private readonly ordered: readonly ManifestEntry[],
    order: Uint32Array | PathOrder,
  ) {
    this.byPath = order instanceof Uint32Array ? undefined : order;
    this.places = order instanceof Uint32Array ? order : order.places;
  }

  /** The rows from the next one up to `end`. */
  next(end: number): RowColumns {
    const count = end - this.row;
    const paths = new Array<string>(count);
    const hashes = new Array<string>(count);
    const sizes = new Array<number>(count);
    const byPath = this.byPath;
    if (byPath === undefined) {
      for (let i = 0; i < count; i++) {
        const entry = this.ordered[this.places[this.row + i]!]!;
        paths[i] = entry.path;
        hashes[i] = entry.hash;
        sizes[i] = entry.size;
      }
    } else {
      let start = this.pathStart;
      for (let i = 0, row = this.row; i < count; i++, row++) {
        const stop = byPath.paths.indexOf("\0", start);
        const pathEnd = stop < 0 ? byPath.paths.length : stop;
        paths[i] = byPath.paths.slice(start, pathEnd);
        start = pathEnd + 1;
        hashes[i] = byPath.hashes.slice(row * 32, row * 32 + 32);
        sizes[i] = byPath.sizes[row]!;
      }
      this.pathStart = start;
    }
    this.row = end;
    return { paths, hashes, sizes };
  }
}
