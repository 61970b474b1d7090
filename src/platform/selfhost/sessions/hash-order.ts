import type { Pacer } from "../../../shared/event-loop.js";
import { sortPaced } from "../../../shared/paced-sort.js";

/** Items below this many are sorted by comparing their hashes: the counting sort's table costs more. */
const SMALL = 2_048;
/** A group of one prefix larger than this is merge-sorted (insertion sort is quadratic). */
const SMALL_GROUP = 32;
/** Hex digits the counting sort orders by: 65,536 groups, a few items each for 100,000 hashes. */
const PREFIX_DIGITS = 4;

/** Compares two hashes as JavaScript orders strings (hex digits: as every collation does). */
export function compareHashes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A copy of `items` in the order of `hashOf` (stable, as Array.prototype.sort), paced by `pacer`:
 * a counting sort on the first four hex digits, then each group (a few items) sorted by comparing
 * the whole hashes. Comparing whole hashes throughout (a merge sort, sortPaced) was 8% of a
 * 100,000-entry prepare's time on the thread the service shares (issue 32). A hash that does not
 * start with four lowercase hex digits (the manifest check allows none) falls back to that sort.
 */
export async function sortByHash<T>(
  items: readonly T[],
  hashOf: (item: T) => string,
  pacer: Pacer,
): Promise<T[]> {
  const count = items.length;
  const byHash = (a: T, b: T) => compareHashes(hashOf(a), hashOf(b));
  if (count < SMALL) return sortPaced(items, byHash, pacer);
  if (await inOrder(items, hashOf, pacer)) return items.slice();
  const keys = new Uint32Array(count);
  const starts = new Uint32Array((1 << (4 * PREFIX_DIGITS)) + 1);
  for (let i = 0; i < count; i++) {
    if ((i & 4095) === 4095 && pacer.due()) await pacer.next();
    const key = prefixOf(hashOf(items[i]!));
    if (key < 0) return sortPaced(items, byHash, pacer);
    keys[i] = key;
    starts[key + 1]!++;
  }
  for (let key = 1; key < starts.length; key++) starts[key]! += starts[key - 1]!;
  const ordered = new Array<T>(count);
  const next = starts.slice();
  for (let i = 0; i < count; i++) {
    if ((i & 4095) === 4095 && pacer.due()) await pacer.next();
    ordered[next[keys[i]!]!++] = items[i]!;
  }
  // Each group of one prefix, in place: most hold a few items (an insertion sort, stable); a
  // large one (hashes chosen to share a prefix) by the merge sort, never in quadratic time.
  for (let key = 0, placed = 0; key < starts.length - 1; key++) {
    const start = starts[key]!;
    const end = starts[key + 1]!;
    if (end - start > SMALL_GROUP) {
      const group = await sortPaced(ordered.slice(start, end), byHash, pacer);
      for (let i = 0; i < group.length; i++) ordered[start + i] = group[i]!;
    } else insertionSort(ordered, start, end, byHash);
    placed += end - start;
    if (placed >= 4096) {
      placed = 0;
      if (pacer.due()) await pacer.next();
    }
  }
  return ordered;
}

/**
 * Whether `items` are in hash order already (a session's missing hashes are, given to the bucket
 * packing): one look at each instead of sorting them again. Items in no order stop it at once.
 */
async function inOrder<T>(items: readonly T[], hashOf: (item: T) => string, pacer: Pacer): Promise<boolean> {
  let last = hashOf(items[0]!);
  for (let i = 1; i < items.length; i++) {
    if ((i & 4095) === 4095 && pacer.due()) await pacer.next();
    const hash = hashOf(items[i]!);
    if (hash < last) return false;
    last = hash;
  }
  return true;
}

/** Sorts `items` from `start` to `end` in place, stably. */
function insertionSort<T>(items: T[], start: number, end: number, compare: (a: T, b: T) => number): void {
  for (let i = start + 1; i < end; i++) {
    const item = items[i]!;
    let j = i - 1;
    while (j >= start && compare(items[j]!, item) > 0) {
      items[j + 1] = items[j]!;
      j--;
    }
    items[j + 1] = item;
  }
}

/** The value of the first PREFIX_DIGITS lowercase hex digits of `hash`, or -1. */
function prefixOf(hash: string): number {
  if (hash.length < PREFIX_DIGITS) return -1;
  let key = 0;
  for (let i = 0; i < PREFIX_DIGITS; i++) {
    const code = hash.charCodeAt(i);
    const digit = code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1;
    if (digit < 0) return -1;
    key = key * 16 + digit;
  }
  return key;
}
