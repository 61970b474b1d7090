/** Size of an asset once base64-encoded, which is what a bucket carries. */
function encodedSize(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

export interface BucketLimits {
  /** Encoded payload per bucket, under Cloudflare's 50 MiB request limit. */
  maxBytes: number;
  maxFiles: number;
}

/**
 * Groups missing assets into buckets that each stay under the limits. Largest first, each into the
 * first bucket with room (first-fit decreasing), so buckets come out few and even.
 */
export function groupIntoBuckets(assets: { hash: string; size: number }[], limits: BucketLimits): string[][] {
  const sorted = [...assets].sort((a, b) => b.size - a.size);
  const buckets: { hashes: string[]; bytes: number }[] = [];
  for (const asset of sorted) {
    const size = encodedSize(asset.size);
    let bucket = buckets.find((b) => b.hashes.length < limits.maxFiles && b.bytes + size <= limits.maxBytes);
    if (!bucket) {
      bucket = { hashes: [], bytes: 0 };
      buckets.push(bucket);
    }
    bucket.hashes.push(asset.hash);
    bucket.bytes += size;
  }
  return buckets.map((b) => b.hashes);
}
