import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { groupIntoBuckets } from "./buckets.js";

/**
 * First fit written the plain way (scan every bucket for each asset), over the assets larger than
 * a sixteenth of a bucket by size decreasing, then the others by hash: the reference.
 */
function firstFit(
  assets: { hash: string; size: number }[],
  limits: { maxBytes: number; maxFiles: number },
): string[][] {
  const encoded = (size: number) => Math.ceil(size / 3) * 4;
  const large = assets.filter((a) => encoded(a.size) > limits.maxBytes / 16);
  const small = assets.filter((a) => encoded(a.size) <= limits.maxBytes / 16);
  const sorted = [
    ...large.sort((a, b) => b.size - a.size),
    ...small.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0)),
  ];
  const buckets: { hashes: string[]; bytes: number }[] = [];
  for (const asset of sorted) {
    const size = Math.ceil(asset.size / 3) * 4;
    let bucket = buckets.find((b) => b.hashes.length < limits.maxFiles && b.bytes + size <= limits.maxBytes);
    if (!bucket) buckets.push((bucket = { hashes: [], bytes: 0 }));
    bucket.hashes.push(asset.hash);
    bucket.bytes += size;
  }
  return buckets.map((b) => b.hashes);
}

describe("groupIntoBuckets", () => {
  it("groupIntoBuckets: the same buckets as a plain first fit (large assets by size, then the others by hash), whatever the sizes and limits", async () => {
    const asset = fc.record({
      hash: fc.string({ minLength: 1, maxLength: 8 }),
      // Sizes from empty to larger than a bucket, often repeated so that ties are exercised.
      size: fc.oneof(fc.integer({ min: 0, max: 4000 }), fc.constantFrom(0, 3, 300, 750, 1500)),
    });
    const limits = fc.record({
      maxBytes: fc.integer({ min: 1, max: 3000 }),
      maxFiles: fc.integer({ min: 1, max: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(asset, { maxLength: 200 }), limits, async (assets, limit) => {
        expect(await groupIntoBuckets(assets, limit, new Pacer())).toEqual(firstFit(assets, limit));
      }),
      { seed: 20_260_505, numRuns: 500 },
    );
  });

  it("groupIntoBuckets: every bucket stays within maxBytes and maxFiles, every asset once", async () => {
    const assets = Array.from({ length: 5000 }, (_, i) => ({ hash: `h${i}`, size: (i * 7919) % 40_000 }));
    const buckets = await groupIntoBuckets(assets, { maxBytes: 100_000, maxFiles: 50 }, new Pacer());
    const sizes = new Map(assets.map((a) => [a.hash, Math.ceil(a.size / 3) * 4]));
    for (const bucket of buckets) {
      expect(bucket.length).toBeLessThanOrEqual(50);
      expect(bucket.reduce((sum, hash) => sum + sizes.get(hash)!, 0)).toBeLessThanOrEqual(100_000);
    }
    expect(buckets.flat().sort()).toEqual(assets.map((a) => a.hash).sort());
  });

  it("groupIntoBuckets: small assets come out as ranges of hashes, in order, bucket after bucket", async () => {
    const hashes = Array.from({ length: 3000 }, (_, i) =>
      ((i * 2_654_435_761) % 2 ** 32).toString(16).padStart(8, "0"),
    );
    const assets = hashes.map((hash, i) => ({ hash, size: 100 + (i % 900) }));
    const buckets = await groupIntoBuckets(assets, { maxBytes: 1_000_000, maxFiles: 400 }, new Pacer());
    expect(buckets.length).toBe(8);
    expect(buckets.flat()).toEqual([...hashes].sort());
  });

  it("groupIntoBuckets: an asset of exactly a sixteenth of a bucket (encoded) is not large: it goes in hash order", async () => {
    // 75 bytes encode to 100, a sixteenth of 1,600; 76 encode to 104.
    const assets = [
      { hash: "b", size: 75 },
      { hash: "a", size: 3 },
      { hash: "c", size: 76 },
    ];
    expect(await groupIntoBuckets(assets, { maxBytes: 1600, maxFiles: 1 }, new Pacer())).toEqual([
      ["c"],
      ["a"],
      ["b"],
    ]);
  });

  it("groupIntoBuckets: 100,000 assets of distinct hashes are sorted and packed in slices, a pause at least every 4,096 assets", async () => {
    const assets = Array.from({ length: 100_000 }, (_, i) => ({
      hash: ((i * 2_654_435_761) % 2 ** 32).toString(16).padStart(32, "0"),
      size: 1 + ((i * 7919) % 50_000),
    }));
    // Always due: every chance to pause is taken, so the count says how fine the slices are.
    const pacer = new Pacer(0);
    const buckets = await groupIntoBuckets(assets, { maxBytes: 40 * 1024 * 1024, maxFiles: 2000 }, pacer);
    expect(buckets.flat().length).toBe(100_000);
    // The sort's runs and merges and the packing each pause every 1,024 or 256 items: hundreds.
    expect(pacer.pauses).toBeGreaterThan((3 * 100_000) / 4096);
  });
});
