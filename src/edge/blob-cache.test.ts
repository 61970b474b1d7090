import { describe, expect, it } from "vitest";
import { BlobCache, type CachedBlob } from "./blob-cache.js";

const blob = (size: number): CachedBlob => ({ body: Buffer.alloc(size), br: undefined, gzip: undefined });

describe("BlobCache", () => {
  it("load: keeps a loaded blob and answers later gets from memory", async () => {
    const cache = new BlobCache({ maxBytes: 10_000 });
    const loaded = await cache.load("a", async () => blob(100));
    expect(cache.get("a")).toBe(loaded);
    expect(cache.size).toBeGreaterThanOrEqual(100);
  });

  it("load: concurrent misses on one hash share one load", async () => {
    const cache = new BlobCache({ maxBytes: 10_000 });
    let loads = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The load stays pending until all three callers have asked.
    const load = async () => {
      loads++;
      await released;
      return blob(10);
    };
    const pending = [cache.load("a", load), cache.load("a", load), cache.load("a", load)];
    release();
    const results = await Promise.all(pending);
    expect(loads).toBe(1);
    expect(new Set(results).size).toBe(1);
  });

  it("load: a failed load is not kept and can be tried again", async () => {
    const cache = new BlobCache({ maxBytes: 10_000 });
    await expect(cache.load("a", () => Promise.reject(new Error("gone")))).rejects.toThrow("gone");
    expect(cache.get("a")).toBeUndefined();
    await expect(cache.load("a", async () => blob(1))).resolves.toBeDefined();
  });

  it("load: evicts the least recently used blobs to stay within its bytes", async () => {
    const cache = new BlobCache({ maxBytes: 3 * (1000 + 256), maxEntryBytes: 2000 });
    await cache.load("a", async () => blob(1000));
    await cache.load("b", async () => blob(1000));
    await cache.load("c", async () => blob(1000));
    cache.get("a");
    await cache.load("d", async () => blob(1000));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    expect(cache.get("c")).toBeDefined();
    expect(cache.get("d")).toBeDefined();
    expect(cache.size).toBeLessThanOrEqual(3 * (1000 + 256));
  });

  it("load: keeps the blob just loaded when every older one was used, within the bound", async () => {
    const cache = new BlobCache({ maxBytes: 3 * (1000 + 256), maxEntryBytes: 2000 });
    for (const hash of ["a", "b", "c"]) await cache.load(hash, async () => blob(1000));
    for (const hash of ["a", "b", "c"]) cache.get(hash);
    await cache.load("d", async () => blob(1000));
    expect(cache.get("d")).toBeDefined();
    expect(["a", "b", "c"].filter((hash) => cache.get(hash) !== undefined)).toHaveLength(2);
    expect(cache.size).toBeLessThanOrEqual(3 * (1000 + 256));
  });

  it("load: counts compressed variants against the bound", async () => {
    const cache = new BlobCache({ maxBytes: 1200 });
    const big: CachedBlob = { body: Buffer.alloc(400), br: Buffer.alloc(200), gzip: Buffer.alloc(300) };
    await cache.load("a", async () => big);
    expect(cache.size).toBe(400 + 200 + 300 + 256);
    await cache.load("b", async () => blob(100));
    expect(cache.get("a")).toBeUndefined();
  });

  it("grow: a variant made later counts against the bound, evicting others, or the blob itself once it no longer fits", async () => {
    const cache = new BlobCache({ maxBytes: 2000 });
    const a = blob(500);
    const b = blob(500);
    await cache.load("a", async () => a);
    await cache.load("b", async () => b);
    cache.grow("a", a, 400);
    expect(cache.size).toBe(500 + 400 + 256 + 500 + 256);
    cache.grow("b", b, 300);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(500 + 300 + 256);
    cache.grow("b", blob(500), 100); // not the blob held: nothing counted
    expect(cache.size).toBe(500 + 300 + 256);
    cache.grow("b", b, 1000);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("admits: only blobs up to the entry limit, and none when the cache has no bytes", () => {
    expect(new BlobCache({ maxBytes: 10_000, maxEntryBytes: 100 }).admits(100)).toBe(true);
    expect(new BlobCache({ maxBytes: 10_000, maxEntryBytes: 100 }).admits(101)).toBe(false);
    expect(new BlobCache({ maxBytes: 50, maxEntryBytes: 100 }).admits(60)).toBe(false);
    expect(new BlobCache({ maxBytes: 0 }).admits(0)).toBe(false);
    expect(new BlobCache().admits(1024 * 1024)).toBe(true);
  });

  it("load: a blob held already is answered without calling the loader again", async () => {
    const cache = new BlobCache({ maxBytes: 10_000 });
    const kept = await cache.load("a", async () => blob(100));
    let calls = 0;
    const again = await cache.load("a", async () => {
      calls++;
      return blob(100);
    });
    expect([again, calls]).toEqual([kept, 0]);
  });

  it("load: a blob that alone exceeds the bound is answered but not kept; one that fills it exactly is", async () => {
    const cache = new BlobCache({ maxBytes: 1000, maxEntryBytes: 1000 });
    const tooBig = blob(1000 - 256 + 1);
    expect(await cache.load("big", async () => tooBig)).toBe(tooBig);
    expect([cache.get("big"), cache.size]).toEqual([undefined, 0]);
    await cache.load("exact", async () => blob(1000 - 256));
    expect(cache.get("exact")).toBeDefined();
    expect(cache.size).toBe(1000);
  });

  it("grow: a blob that then fills the bound exactly stays", async () => {
    const cache = new BlobCache({ maxBytes: 2000 });
    const a = blob(500);
    await cache.load("a", async () => a);
    cache.grow("a", a, 2000 - 500 - 256);
    expect(cache.get("a")).toBe(a);
    expect(cache.size).toBe(2000);
  });

  it("counts: hits and misses start at zero", () => {
    expect(new BlobCache().counts).toEqual({ hits: 0, misses: 0 });
  });
});
