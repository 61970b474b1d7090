import { InvalidManifestError } from "./errors.js";
import { manifestDigest } from "./manifest-digest.js";
import { comparePaths, type ManifestEntry, type ManifestLimits, parseManifest } from "./manifest.js";

/**
 * A manifest checked away from the service's thread (a worker), in a form that crosses to it cheaply:
 * its paths joined by NUL (which no valid path holds), its hashes end to end, its sizes, and the
 * digest already taken; or the INVALID_MANIFEST message its check gave. A structured clone of
 * 100,000 entry objects would cost the receiving thread about as much as parsing them. Its
 * entries are in the order of their hashes, one hash's in path order (the manifest's own order
 * means nothing): a platform reads its hashes in that order, and entries made in it lie in memory
 * in it too (issue 32: every pass of a 100,000-entry prepare over its entries sorted on the
 * service's thread read them from all over the heap, up to ten times slower). `byPath`: the same
 * entries in the order of their paths (PathOrder), sorted here too.
 */
export type CompactManifest =
  | { error: string }
  | {
      paths: string;
      hashes: string;
      sizes: Float64Array;
      byPath: PathOrder;
      count: number;
      digest: string;
    };

/**
 * A manifest's entries in the order of their paths, for a platform that writes its rows in that
 * order: their places in the entries (`places[i]`: the i-th path's), and their paths (joined by
 * NUL), hashes (end to end) and sizes in that order. Sorted by a worker (0.4 s of the service's
 * thread for 100,000 entries sorted there); the strings laid out in path order because rows read
 * off the entries by their places found each entry's object and strings far from the last one's
 * (issue 32: a 100,000-entry session's rows so read cost that thread ~10% more).
 */
export interface PathOrder {
  places: Uint32Array;
  paths: string;
  hashes: string;
  sizes: Float64Array;
}

/** Checks `manifest` as `parseManifest` does and packs the result (for the thread that parsed it). */
export function compactManifest(manifest: unknown, slug: string, limits: ManifestLimits): CompactManifest {
  let entries: ManifestEntry[];
  try {
    entries = parseManifest(manifest, slug, limits);
  } catch (error) {
    if (error instanceof InvalidManifestError) return { error: error.message };
    throw error;
  }
  // In path order first: the digest sorts them so too (then finding them in order), and the
  // engine's sort takes the runs a manifest comes in (a client sends it in path order).
  const byPath = entries.sort(comparePaths);
  const digest = manifestDigest(byPath);
  const places = hashPlaces(byPath);
  const count = byPath.length;
  const ordered = new Array<ManifestEntry>(count);
  const sizes = new Float64Array(count);
  const pathPlaces = new Uint32Array(count);
  // Filled in this loop (Float64Array.from with a function took 10-30 ms for 100,000 entries).
  const pathSizes = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const place = places[i]!;
    const entry = byPath[place]!;
    ordered[i] = entry;
    sizes[i] = entry.size;
    pathPlaces[place] = i;
    pathSizes[place] = entry.size;
  }
  return {
    paths: ordered.map((entry) => entry.path).join("\0"),
    hashes: ordered.map((entry) => entry.hash).join(""),
    sizes,
    byPath: {
      places: pathPlaces,
      paths: byPath.map((entry) => entry.path).join("\0"),
      hashes: byPath.map((entry) => entry.hash).join(""),
      sizes: pathSizes,
    },
    count,
    digest,
  };
}

/** Indexes a sort key keeps beside a hash's first 32 bits: 2^32 * 2^21 is 2^53, exact in a double. */
const INDEXES = 2 ** 21;

/**
 * The places in `entries` of their entries in the order of their hashes (32 lowercase hex digits,
 * as checked), stably: one number an entry, its hash's first 32 bits and its index, sorted by the
 * engine without a comparator, then each run of one prefix (a few, if any) by whole hashes.
 * Comparing whole hashes throughout took the worker 55 ms for 100,000 entries, on the prepare's
 * path; this about 10.
 */
function hashPlaces(entries: readonly ManifestEntry[]): Uint32Array {
  const count = entries.length;
  // Equal hashes keep their places' order.
  const byHash = (a: number, b: number) => {
    const x = entries[a]!.hash;
    const y = entries[b]!.hash;
    return x < y ? -1 : x > y ? 1 : a - b;
  };
  if (count >= INDEXES) return Uint32Array.from(Array.from({ length: count }, (_, i) => i).sort(byHash));
  const keys = new Float64Array(count);
  for (let i = 0; i < count; i++) keys[i] = Number.parseInt(entries[i]!.hash.slice(0, 8), 16) * INDEXES + i;
  keys.sort();
  const places = new Uint32Array(count);
  for (let i = 0; i < count; i++) places[i] = keys[i]! % INDEXES;
  for (let start = 0; start < count;) {
    const prefix = Math.floor(keys[start]! / INDEXES);
    let end = start + 1;
    while (end < count && Math.floor(keys[end]! / INDEXES) === prefix) end++;
    if (end - start > 1) places.set(Array.from(places.subarray(start, end)).sort(byHash), start);
    start = end;
  }
  return places;
}

/** A prepare's manifest as a worker checked it: the core unpacks it where it would have checked it. */
export class CheckedManifest {
  constructor(readonly compact: CompactManifest) {}

  /**
   * The entries and digest, or INVALID_MANIFEST with the message the check gave; the entries are
   * rebuilt in slices (`pause`), as `parseManifestSliced` builds them.
   */
  async open(pause: {
    due(): boolean;
    next(): Promise<void>;
  }): Promise<{ entries: ManifestEntry[]; digest: string; byPath: PathOrder }> {
    const compact = this.compact;
    if ("error" in compact) throw new InvalidManifestError(compact.error);
    const entries: ManifestEntry[] = new Array(compact.count);
    let start = 0;
    for (let i = 0; i < compact.count; i++) {
      if ((i & 255) === 255 && pause.due()) await pause.next();
      const end = i === compact.count - 1 ? compact.paths.length : compact.paths.indexOf("\0", start);
      entries[i] = {
        path: compact.paths.slice(start, end),
        hash: compact.hashes.slice(i * 32, i * 32 + 32),
        size: compact.sizes[i]!,
      };
      start = end + 1;
    }
    return { entries, digest: compact.digest, byPath: compact.byPath };
  }
}
