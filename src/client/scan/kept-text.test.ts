import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashAsset } from "../../core/asset-hash.js";
import { base64Length, WHOLE_READ_BYTES } from "./file-stream.js";
import { HashCache } from "./hash-cache.js";
import { hashSite } from "./hash.js";
import { KeptTexts } from "./kept-text.js";
import type { SiteFile } from "./walk-state.js";

let dir: string;
let files: SiteFile[];
// Sizes in path order, not sorted: the smallest are kept first wherever they are.
const SIZES = [3000, 10, 300, WHOLE_READ_BYTES + 1, 0, 2000, 30];
const bytesOf = (size: number, seed: number) =>
  Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + seed) & 0xff));
// The compiled hashing thread (`npm run build`), as the client runs it.
const workerUrl = new URL("../../../dist/client/scan/hash-worker.js", import.meta.url);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kept-"));
  files = [];
  for (const [i, size] of SIZES.entries()) {
    const path = `f${i}.txt`;
    await writeFile(join(dir, path), bytesOf(size, i));
    files.push({ path, absPath: join(dir, path), size, mtimeMs: 0, ino: i });
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Indexes of the files whose text is kept. */
const keptIndexes = (kept: KeptTexts) =>
  files.flatMap((file, i) => (kept.get(file) === undefined ? [] : [i]));

describe("KeptTexts", () => {
  it("KeptTexts.choose: the smallest files first while their base64 fits the budget, none over WHOLE_READ_BYTES", () => {
    const all = files.map((_, i) => i);
    // 0, 10, 30, 300 bytes: 0 + 16 + 40 + 400 characters of base64.
    expect([...new KeptTexts(456).choose(files, all)].sort()).toEqual([1, 2, 4, 6]);
    expect([...new KeptTexts(455).choose(files, all)].sort()).toEqual([1, 4, 6]);
    expect([...new KeptTexts(0).choose(files, all)]).toEqual([4]);
    // Only the pending ones, and never the file over WHOLE_READ_BYTES, whatever the budget.
    expect([...new KeptTexts(1 << 30).choose(files, [0, 3, 5])].sort()).toEqual([0, 5]);
  });

  for (const threads of [0, 2]) {
    it(`hashSite: with ${threads} threads, the texts kept are the base64 of the files as hashed, within the budget`, async () => {
      if (threads > 0) expect(existsSync(workerUrl)).toBe(true);
      const kept = new KeptTexts(base64Length(3000) + base64Length(2000) + 456);
      const hashes = await hashSite(files, {
        cache: HashCache.empty(),
        threads,
        threadMinFiles: 1,
        workerUrl,
        keep: kept,
      });
      for (const [i, file] of files.entries()) {
        expect(hashes[i]).toBe(await hashAsset(bytesOf(file.size, i), file.path));
      }
      expect(keptIndexes(kept)).toEqual([0, 1, 2, 4, 5, 6]);
      for (const i of keptIndexes(kept)) {
        expect(kept.get(files[i]!)!.toString("latin1")).toBe(bytesOf(SIZES[i]!, i).toString("base64"));
      }
      kept.release([files[0]!, files[1]!]);
      expect(keptIndexes(kept)).toEqual([2, 4, 5, 6]);
      expect(kept.size).toBe(4);
    });
  }
});
