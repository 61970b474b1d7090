import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import { FINE_RACY_WINDOW_MS, HashCache, isRacy, RACY_WINDOW_MS, racyWindowMs } from "./hash-cache.js";
import { hashSite } from "./hash.js";
import type { SiteFile } from "./walk-state.js";

let config: string;
const file = (over: Partial<SiteFile> = {}): SiteFile => ({
  path: "a.txt",
  absPath: "/nowhere/a.txt",
  size: 3,
  mtimeMs: 1_000,
  ino: 42,
  ...over,
});

beforeEach(async () => {
  config = await mkdtemp(join(tmpdir(), "cache-"));
});
afterEach(async () => {
  await rm(config, { recursive: true, force: true });
});

describe("HashCache", () => {
  it("HashCache: a saved hash is found again while path, size, mtime and inode match", async () => {
    const cache = await HashCache.load(config, "p".repeat(64));
    cache.record(file(), "h".repeat(32));
    await cache.save();
    const again = await HashCache.load(config, "p".repeat(64));
    expect(again.lookup(file())).toBe("h".repeat(32));
    expect(again.lookup(file({ size: 4 }))).toBeUndefined();
    expect(again.lookup(file({ mtimeMs: 1_001 }))).toBeUndefined();
    expect(again.lookup(file({ ino: 43 }))).toBeUndefined();
    expect(again.lookup(file({ path: "b.txt" }))).toBeUndefined();
    expect((await HashCache.load(config, "q".repeat(64))).lookup(file())).toBeUndefined();
  });

  it("HashCache: a cache file that does not parse is an empty cache, replaced on save", async () => {
    const path = join(config, "hash-cache", `${"p".repeat(64)}.json`);
    const first = await HashCache.load(config, "p".repeat(64));
    first.record(file(), "h".repeat(32));
    await first.save();
    await writeFile(path, '{"version":1,"entr');
    const cache = await HashCache.load(config, "p".repeat(64));
    expect(cache.lookup(file())).toBeUndefined();
    cache.record(file(), "h".repeat(32));
    await cache.save();
    expect((await HashCache.load(config, "p".repeat(64))).lookup(file())).toBe("h".repeat(32));
  });

  it("HashCache: the file has mode 0600 and keeps only this run's files", async () => {
    const cache = await HashCache.load(config, "p".repeat(64));
    cache.record(file(), "1".repeat(32));
    cache.record(file({ path: "gone.txt" }), "2".repeat(32));
    await cache.save();
    const next = await HashCache.load(config, "p".repeat(64));
    next.lookup(file());
    await next.save();
    const path = join(config, "hash-cache", `${"p".repeat(64)}.json`);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, "utf8")).not.toContain("gone.txt");
  });

  it("HashCache: a run that found every file in the cache and lost none does not write it again", async () => {
    const first = await HashCache.load(config, "p".repeat(64));
    first.record(file(), "1".repeat(32));
    first.record(file({ path: "b.txt" }), "2".repeat(32));
    await first.save();
    const path = join(config, "hash-cache", `${"p".repeat(64)}.json`);
    const written = await stat(path);
    const same = await HashCache.load(config, "p".repeat(64));
    same.lookup(file());
    same.lookup(file({ path: "b.txt" }));
    await same.save();
    const after = await stat(path);
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
    // A file recorded anew is written.
    const changed = await HashCache.load(config, "p".repeat(64));
    changed.lookup(file());
    changed.record(file({ path: "b.txt", size: 9 }), "3".repeat(32));
    await changed.save();
    expect((await HashCache.load(config, "p".repeat(64))).lookup(file({ path: "b.txt", size: 9 }))).toBe(
      "3".repeat(32),
    );
  });

  it("HashCache: files modified within the racy window are not cached", async () => {
    const cache = await HashCache.load(config, "p".repeat(64));
    cache.record(file({ mtimeMs: 10_000 }), "3".repeat(32), 10_000 + RACY_WINDOW_MS - 1);
    await cache.save();
    expect((await HashCache.load(config, "p".repeat(64))).lookup(file({ mtimeMs: 10_000 }))).toBeUndefined();
  });

  it("HashCache: a file with a sub-second mtime written 100 ms before the scan is cached for the very next deploy", async () => {
    const cache = await HashCache.load(config, "p".repeat(64), 10_123.5 + 100);
    cache.record(file({ mtimeMs: 10_123.5 }), "4".repeat(32));
    cache.record(file({ path: "racy.txt", mtimeMs: 10_200.5 }), "5".repeat(32));
    await cache.save();
    const next = await HashCache.load(config, "p".repeat(64));
    expect(next.lookup(file({ mtimeMs: 10_123.5 }))).toBe("4".repeat(32));
    // Modified 23 ms before the scan: outside the fine window too.
    expect(next.lookup(file({ path: "racy.txt", mtimeMs: 10_200.5 }))).toBe("5".repeat(32));
  });

  it("HashCache: a file with a sub-second mtime within FINE_RACY_WINDOW_MS of the scan is not cached", async () => {
    const cache = await HashCache.load(config, "p".repeat(64), 10_000.5 + FINE_RACY_WINDOW_MS - 1);
    cache.record(file({ mtimeMs: 10_000.5 }), "6".repeat(32));
    await cache.save();
    expect(
      (await HashCache.load(config, "p".repeat(64))).lookup(file({ mtimeMs: 10_000.5 })),
    ).toBeUndefined();
  });

  it("HashCache: a cache file of another version, or without an entries object, is an empty cache", async () => {
    const path = join(config, "hash-cache", `${"p".repeat(64)}.json`);
    await mkdir(join(config, "hash-cache"));
    const entries = { "a.txt": [3, 1_000, 42, "h".repeat(32)] };
    await writeFile(path, JSON.stringify({ version: 1, entries }));
    expect((await HashCache.load(config, "p".repeat(64))).lookup(file())).toBe("h".repeat(32));
    for (const data of [
      { version: 2, entries },
      { version: 1, entries: "a.txt" },
      { version: 1, entries: null },
      null,
    ]) {
      await writeFile(path, JSON.stringify(data));
      expect((await HashCache.load(config, "p".repeat(64))).lookup(file())).toBeUndefined();
    }
  });

  it("HashCache: a cache whose entries are text is empty, and a run that records nothing leaves it be", async () => {
    const path = join(config, "hash-cache", `${"p".repeat(64)}.json`);
    await mkdir(join(config, "hash-cache"));
    await writeFile(path, JSON.stringify({ version: 1, entries: "abc" }));
    const cache = await HashCache.load(config, "p".repeat(64));
    expect(cache.lookup(file())).toBeUndefined();
    await cache.save();
    expect(await readFile(path, "utf8")).toBe(JSON.stringify({ version: 1, entries: "abc" }));
  });

  it("HashCache: an entry that is not [size, mtime, inode, hash] is no hash", async () => {
    const path = join(config, "hash-cache", `${"p".repeat(64)}.json`);
    await mkdir(join(config, "hash-cache"));
    for (const entry of [
      "h".repeat(32),
      { 0: 3, 1: 1_000, 2: 42, 3: "h".repeat(32), length: 4 },
      [3, 1_000, 42],
      [3, 1_000, 42, "h".repeat(32), "extra"],
      [3, 1_000, 42, 7],
    ]) {
      await writeFile(path, JSON.stringify({ version: 1, entries: { "a.txt": entry } }));
      expect((await HashCache.load(config, "p".repeat(64))).lookup(file())).toBeUndefined();
    }
  });

  it("HashCache: a cache that cannot be read (not merely invalid) fails the load", async () => {
    await mkdir(join(config, "hash-cache", `${"p".repeat(64)}.json`), { recursive: true });
    const error = await HashCache.load(config, "p".repeat(64)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe("CONFIG");
  });

  it("HashCache: by default the scan starts at load, so a file written just before is not cached", async () => {
    const justNow = Date.now() - 1.5;
    const aMinuteAgo = Date.now() - 60_000.5;
    const cache = await HashCache.load(config, "p".repeat(64));
    cache.record(file({ mtimeMs: justNow }), "7".repeat(32));
    cache.record(file({ path: "old.txt", mtimeMs: aMinuteAgo }), "8".repeat(32));
    await cache.save();
    const next = await HashCache.load(config, "p".repeat(64));
    expect(next.lookup(file({ mtimeMs: justNow }))).toBeUndefined();
    expect(next.lookup(file({ path: "old.txt", mtimeMs: aMinuteAgo }))).toBe("8".repeat(32));
  });

  it("HashCache.empty: remembers nothing and saving it writes nowhere", async () => {
    const cache = HashCache.empty();
    cache.record(file(), "h".repeat(32));
    await expect(cache.save()).resolves.toBeUndefined();
    expect(cache.lookup(file())).toBeUndefined();
  });

  it("racyWindowMs: whole seconds get the coarse window, anything finer the fine one", () => {
    expect([racyWindowMs(5_000), racyWindowMs(0), racyWindowMs(5_000.5), racyWindowMs(5_001)]).toEqual([
      RACY_WINDOW_MS,
      RACY_WINDOW_MS,
      FINE_RACY_WINDOW_MS,
      FINE_RACY_WINDOW_MS,
    ]);
  });

  it("isRacy: racy strictly within the window of the scan's start, not at its end", () => {
    expect(isRacy({ mtimeMs: 10_000 }, 10_000 + RACY_WINDOW_MS - 1)).toBe(true);
    expect(isRacy({ mtimeMs: 10_000 }, 10_000 + RACY_WINDOW_MS)).toBe(false);
    expect(isRacy({ mtimeMs: 10_000.5 }, 10_000.5 + FINE_RACY_WINDOW_MS)).toBe(false);
    expect(isRacy({ mtimeMs: 10_000.5 }, 10_000.5 + FINE_RACY_WINDOW_MS - 0.5)).toBe(true);
  });

  it("hashSite: an unchanged file is not read again", async () => {
    const absPath = join(config, "site.txt");
    await writeFile(absPath, "abc");
    const info = await stat(absPath);
    const entry = file({ absPath, path: "site.txt", mtimeMs: info.mtimeMs, ino: info.ino });
    const cache = await HashCache.load(config, "p".repeat(64));
    cache.record(entry, "c".repeat(32), info.mtimeMs + RACY_WINDOW_MS);
    await cache.save();
    await rm(absPath);
    const seen: boolean[] = [];
    const hashes = await hashSite([entry], {
      cache: await HashCache.load(config, "p".repeat(64)),
      threads: 0,
      onFile: (_, cached) => seen.push(cached),
    });
    expect(hashes).toEqual(["c".repeat(32)]);
    expect(seen).toEqual([true]);
  });
});
