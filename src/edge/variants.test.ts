import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { MemoryEdgeStorage } from "../../test/support/memory-edge-storage.js";
import { BlobCache, type CachedBlob } from "./blob-cache.js";
import { VariantMaker } from "./variants.js";

const blob = (text: string): CachedBlob => ({
  body: Buffer.from(text.repeat(50)),
  br: undefined,
  gzip: undefined,
});

/** A maker of in-memory variants: those read nothing of the storage. */
function maker(cache: BlobCache, maxAtOnce: number): VariantMaker {
  return new VariantMaker(cache, new MemoryEdgeStorage(), maxAtOnce);
}

describe("VariantMaker.inMemory", () => {
  it("inMemory: compressions of different blobs and codings at once each give their own variant, kept with the blob", async () => {
    const cache = new BlobCache({ maxBytes: 100_000 });
    const a = await cache.load("a", async () => blob("alpha "));
    const b = await cache.load("b", async () => blob("bravo "));
    const variants = maker(cache, 3);
    const [aGzip, bGzip, aBr] = await Promise.all([
      variants.inMemory("a", a, "gzip"),
      variants.inMemory("b", b, "gzip"),
      variants.inMemory("a", a, "br"),
    ]);
    expect(gunzipSync(aGzip!)).toEqual(a.body);
    expect(gunzipSync(bGzip!)).toEqual(b.body);
    expect(brotliDecompressSync(aBr!)).toEqual(a.body);
    expect([a.gzip, a.br, b.gzip]).toEqual([aGzip, aBr, bGzip]);
  });

  it("inMemory: a request for a variant being made shares it; beyond the cap, undefined until one ends", async () => {
    const cache = new BlobCache({ maxBytes: 100_000 });
    const a = await cache.load("a", async () => blob("alpha "));
    const b = await cache.load("b", async () => blob("bravo "));
    const variants = maker(cache, 1);
    const first = variants.inMemory("a", a, "gzip");
    expect(variants.inMemory("a", a, "gzip")).toBe(first);
    expect(variants.inMemory("b", b, "gzip")).toBeUndefined();
    await first;
    const later = variants.inMemory("b", b, "gzip");
    expect(gunzipSync((await later)!)).toEqual(b.body);
  });
});
