import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiskRangeCache } from "./disk-range-cache.js";

const A = "aaaaaaaaaaaaaaaaaaaaaaaa";
const B = "bbbbbbbbbbbbbbbbbbbbbbbb";

describe("DiskRangeCache", () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), "range-cache-")), "cache");
  });
  afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

  /** Writes `length` bytes to a fresh temporary file of the cache and adds it as that range. */
  const put = (cache: DiskRangeCache, id: string, start: number, length: number): string => {
    const temporary = cache.temporaryPath();
    writeFileSync(temporary, Buffer.alloc(length, id[0]));
    return cache.add(id, start, length, temporary);
  };

  it("add, get: a range is kept under <pack>.<start>.<length>, found by the same three and by no other", () => {
    const cache = new DiskRangeCache(dir, 100);
    const temporary = cache.temporaryPath();
    expect(temporary).toMatch(new RegExp(`^${dir}/tmp-[0-9a-f]{16}$`));
    expect(cache.temporaryPath()).not.toBe(temporary);
    writeFileSync(temporary, "0123456789");
    const path = cache.add(A, 5, 10, temporary);
    expect(path).toBe(join(dir, `${A}.5.10`));
    expect(existsSync(temporary)).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("0123456789");
    expect(cache.get(A, 5, 10)).toEqual({ path, offset: 0 });
    expect(cache.get(A, 5, 11)).toBeUndefined();
    expect(cache.get(A, 6, 10)).toBeUndefined();
    expect(cache.get(A, 4, 2)).toBeUndefined();
    expect(cache.get(B, 5, 10)).toBeUndefined();
    expect(cache.size).toBe(10);
    expect(() => cache.get("../etc", 0, 1)).toThrow('not a pack id: "../etc"');
  });

  it("get: a range inside a kept one is found there, at its offset, and marks that entry used", () => {
    const cache = new DiskRangeCache(dir, 30);
    const wide = put(cache, A, 100, 10);
    put(cache, B, 0, 10);
    expect(cache.get(A, 103, 4)).toEqual({ path: wide, offset: 3 });
    expect(cache.get(A, 100, 10)).toEqual({ path: wide, offset: 0 });
    expect(cache.get(A, 109, 1)).toEqual({ path: wide, offset: 9 });
    expect(cache.get(A, 109, 2)).toBeUndefined();
    expect(cache.get(B, 103, 4)).toBeUndefined();
    // A was used last: a new range pushes B out, not A.
    expect(cache.get(A, 105, 1)).toBeDefined();
    put(cache, B, 10, 20);
    expect(cache.get(A, 101, 1)).toBeDefined();
    expect(cache.get(B, 0, 10)).toBeUndefined();
  });

  it("add: past maxBytes the least recently used ranges go first, a range read counting as used", () => {
    const cache = new DiskRangeCache(dir, 30);
    put(cache, A, 0, 10);
    put(cache, A, 10, 10);
    put(cache, B, 0, 10);
    expect(cache.get(A, 0, 10)).toBeDefined(); // now A.10 is the least recently used
    put(cache, B, 10, 10);
    expect(cache.get(A, 10, 10)).toBeUndefined();
    expect(existsSync(join(dir, `${A}.10.10`))).toBe(false);
    for (const [id, start] of [
      [A, 0],
      [B, 0],
      [B, 10],
    ] as const) {
      expect(cache.get(id, start, 10), `${id}.${start}`).toBeDefined();
    }
    expect(cache.size).toBe(30);
  });

  it("add: a range larger than maxBytes empties the rest, then is not kept either", () => {
    const cache = new DiskRangeCache(dir, 30);
    put(cache, A, 0, 10);
    const path = put(cache, B, 0, 40);
    expect(path).toBe(join(dir, `${B}.0.40`));
    expect(cache.get(A, 0, 10)).toBeUndefined();
    expect(cache.get(B, 0, 40)).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("add: the same range again replaces it, counted once; exactly maxBytes is kept", () => {
    const cache = new DiskRangeCache(dir, 20);
    put(cache, A, 0, 10);
    put(cache, A, 0, 10);
    expect(cache.size).toBe(10);
    put(cache, B, 0, 10);
    expect(cache.size).toBe(20);
    expect(cache.get(A, 0, 10)).toBeDefined();
    expect(cache.get(B, 0, 10)).toBeDefined();
  });

  it("dropPack: every range of that pack goes, files and bytes, the others stay", () => {
    const cache = new DiskRangeCache(dir, 100);
    put(cache, A, 0, 10);
    put(cache, A, 10, 5);
    put(cache, B, 0, 7);
    cache.dropPack(A);
    expect(cache.get(A, 0, 10)).toBeUndefined();
    expect(cache.get(A, 10, 5)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([`${B}.0.7`]);
    expect(cache.size).toBe(7);
  });

  it("packs: each pack with a kept range once, those found at a start too; a pack leaves with its last range, evicted or dropped", () => {
    const cache = new DiskRangeCache(dir, 30);
    put(cache, A, 0, 10);
    put(cache, A, 10, 10);
    put(cache, B, 0, 10);
    expect(cache.packs().sort()).toEqual([A, B]);
    expect(new DiskRangeCache(dir, 30).packs().sort()).toEqual([A, B]);
    put(cache, B, 10, 10); // evicts A.0
    expect(cache.packs().sort()).toEqual([A, B]);
    put(cache, B, 20, 10); // evicts A.10, the last of A
    expect(cache.packs()).toEqual([B]);
    cache.dropPack(B);
    expect(cache.packs()).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("new DiskRangeCache: what a start finds is kept, least recently used first, within maxBytes; temporary leftovers removed", () => {
    mkdirSync(dir, { recursive: true });
    const entries: [string, number][] = [
      [`${A}.0.10`, 3_000],
      [`${B}.0.10`, 1_000],
      [`${A}.10.10`, 2_000],
    ];
    for (const [name, atime] of entries) {
      writeFileSync(join(dir, name), Buffer.alloc(10));
      utimesSync(join(dir, name), atime, atime);
    }
    writeFileSync(join(dir, "tmp-0123456789abcdef"), "half written");
    mkdirSync(join(dir, "stray-folder"));
    const cache = new DiskRangeCache(dir, 20);
    // B (used first) went over the bound; the other two stay.
    expect(cache.size).toBe(20);
    expect(readdirSync(dir).sort()).toEqual([`${A}.0.10`, `${A}.10.10`]);
    expect(cache.get(B, 0, 10)).toBeUndefined();
    // A.10 was used before A.0: a new range now pushes it out first.
    put(cache, B, 10, 10);
    expect(cache.get(A, 10, 10)).toBeUndefined();
    expect(cache.get(A, 0, 10)).toBeDefined();
  });
});
