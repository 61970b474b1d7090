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
