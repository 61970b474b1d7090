import type { Pacer } from "../../../shared/event-loop.js";
import { sortPaced } from "../../../shared/paced-sort.js";
import { sortByHash } from "./hash-order.js";

/** Size of an asset once base64-encoded, which is what a bucket carries. */
function encodedSize(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

export interface BucketLimits {
  /** Encoded payload per bucket, under Cloudflare's 50 MiB request limit. */
  maxBytes: number;
  maxFiles: number;
}

/** An asset is large when it takes more than this share of a bucket's bytes. */
const LARGE_SHARE = 1 / 16;

/**
 * Groups missing assets into buckets that each stay under the limits, each asset into the first
 * bucket with room (first fit). Large assets go first, largest first (first-fit decreasing), so
 * buckets come out few and even; then the others in hash order, so that each bucket holds a range
 * of hashes. A bucket's rows are then written to neighbouring pages of every index keyed by hash
 * (blobs, session_blobs): random buckets made each bucket's commit rewrite pages all over those
 * indexes, 25 times over for 50,000 small files, and commits were most of the upload's database
 * time (BENCHMARKS.md, third pass). The first bucket
 * with room is found in a tree of the buckets' room, in O(log n): the whole packing is O(n log n),
 * where scanning the buckets for each asset was quadratic (100,000 assets of 25 MiB, one bucket
 * each, took seconds of the only thread that also serves uploads and sites). The sorts and the
 * packing are paced by `pacer`: 100,000 assets held that thread 270 ms in one go (issue 31).
 */
export async function groupIntoBuckets(
  assets: { hash: string; size: number }[],
  limits: BucketLimits,
  pacer: Pacer,
): Promise<string[][]> {
  const large = limits.maxBytes * LARGE_SHARE;
  const isLarge = (asset: { size: number }) => encodedSize(asset.size) > large;
  const sorted = [
    ...(await sortPaced(assets.filter(isLarge), (a, b) => b.size - a.size, pacer)),
    ...(await sortByHash(
      assets.filter((asset) => !isLarge(asset)),
      (asset) => asset.hash,
      pacer,
    )),
  ];
  const buckets: { hashes: string[]; bytes: number }[] = [];
  const room = new RoomTree(sorted.length);
  for (let i = 0; i < sorted.length; i++) {
    if ((i & 255) === 255 && pacer.due()) await pacer.next();
    const asset = sorted[i]!;
    const size = encodedSize(asset.size);
    let index = room.firstWithRoom(size);
    if (index === -1) {
      index = buckets.length;
      buckets.push({ hashes: [], bytes: 0 });
    }
    const bucket = buckets[index]!;
    bucket.hashes.push(asset.hash);
    bucket.bytes += size;
    room.set(index, bucket.hashes.length < limits.maxFiles ? limits.maxBytes - bucket.bytes : -Infinity);
  }
  return buckets.map((b) => b.hashes);
}

/**
 * The room left in each bucket, in a max segment tree: a leaf per bucket (those not opened yet
 * have none), each inner node the largest room below it, so the leftmost bucket with at least a
 * given room is one walk from the root.
 */
class RoomTree {
  private readonly leaves: number;
  private readonly tree: Float64Array;

  constructor(capacity: number) {
    let leaves = 1;
    while (leaves < capacity) leaves *= 2;
    this.leaves = leaves;
    this.tree = new Float64Array(2 * leaves).fill(-Infinity);
  }

  /** The leftmost bucket with at least `size` of room, or -1. */
  firstWithRoom(size: number): number {
    const tree = this.tree;
    if (tree[1]! < size) return -1;
    let node = 1;
    while (node < this.leaves) node = tree[2 * node]! >= size ? 2 * node : 2 * node + 1;
    return node - this.leaves;
  }

  set(index: number, room: number): void {
    const tree = this.tree;
    let node = index + this.leaves;
    tree[node] = room;
    for (node >>= 1; node >= 1; node >>= 1) tree[node] = Math.max(tree[2 * node]!, tree[2 * node + 1]!);
  }
}
