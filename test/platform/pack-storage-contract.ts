import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buffer } from "node:stream/consumers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  isPackId,
  PackDamagedError,
  PackMissingError,
  type PackStorage,
} from "../../src/platform/selfhost/content/pack-storage.js";
import { PackWriter } from "../../src/platform/selfhost/content/pack-writer.js";
import { SeededRandom } from "../support/seeded-random.js";

/**
 * Opens a fresh, empty storage of one backend. `dir` is a temporary folder of its own (removed
 * after the test) for whatever the backend keeps on the local disk; the writers' temporary files
 * are made in it too, as the platform makes them in its content directory.
 */
export type OpenPackStorage = (dir: string) => Promise<PackStorage>;

// A well-formed id no test commits.
const ABSENT = "0123456789abcdef01234567";
// More than a stream's chunk (64 KiB), so ranges are read in several parts.
const PACK_BYTES = 200_000;

/**
 * What every `PackStorage` promises (content/pack-storage.ts), whatever keeps the bytes: each test
 * opens a fresh storage with `open` and closes it after.
 */
export function packStorageContract(name: string, open: OpenPackStorage): void {
  describe(`pack storage contract: ${name}`, () => {
    let dir: string;
    let storage: PackStorage;
    let closed: boolean;
    let writers = 0;
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), "pack-storage-contract-"));
      storage = await open(dir);
      closed = false;
    });
    afterEach(async () => {
      if (!closed) await storage.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A writer holding `bytes`, not yet finished (commit finishes it). */
    const writerOf = async (bytes: Buffer | string): Promise<PackWriter> => {
      const writer = new PackWriter(join(dir, `writer-${++writers}.tmp`));
      await writer.append(Buffer.from(bytes));
      return writer;
    };
    const commit = async (bytes: Buffer | string) => storage.commit(await writerOf(bytes));
    /** Bytes `start` to `start + length` of pack `id`, read whole, the range closed after. */
    const read = async (id: string, start: number, length: number, packSize: number | undefined) => {
      const range = await storage.openRange(id, start, length, packSize);
      try {
        return await range.readAll();
      } finally {
        range.close();
      }
    };
    const failureOf = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );

    it("commit: returns a new well-formed id and the writer's byte count, and takes the writer's temporary file", async () => {
      const writer = await writerOf("hello pack");
      const { id, size } = await storage.commit(writer);
      expect(isPackId(id)).toBe(true);
      expect(size).toBe(10);
      expect(existsSync(writer.temporaryPath)).toBe(false);
      const other = await commit("hello pack");
      expect(other.id).not.toBe(id);
      expect(other.size).toBe(10);
    });

    it("openRange: the committed bytes exactly, whole, in ranges and in streamed parts, from the first byte to the last", async () => {
      const bytes = new SeededRandom(33).bytes(PACK_BYTES);
      const { id, size } = await commit(bytes);
      expect(size).toBe(PACK_BYTES);
      expect((await read(id, 0, size, size)).equals(bytes)).toBe(true);
      for (const [start, length] of [
        [0, 1],
        [size - 1, 1],
        [1, 70_000],
        [123_457, size - 123_457],
      ] as const) {
        expect((await read(id, start, length, size)).equals(bytes.subarray(start, start + length))).toBe(
          true,
        );
      }
      const range = await storage.openRange(id, 1_000, 150_000, size);
      try {
        // Positions relative to the range, `end` inclusive; two streams of one range at once.
        const [part, last] = await Promise.all([
          buffer(range.stream(5, 99_999)),
          buffer(range.stream(149_999, 149_999)),
        ]);
        expect(part.equals(bytes.subarray(1_005, 101_000))).toBe(true);
        expect(last.equals(bytes.subarray(150_999, 151_000))).toBe(true);
        expect((await range.readAll()).equals(bytes.subarray(1_000, 151_000))).toBe(true);
      } finally {
        range.close();
      }
    });

    it("openRange: an empty range, even at the pack's end, is empty", async () => {
      const { id, size } = await commit("abc");
      expect((await read(id, 3, 0, size)).length).toBe(0);
      const range = await storage.openRange(id, 1, 0, size);
      expect((await buffer(range.stream(0, -1))).length).toBe(0);
      range.close();
    });

    it("openRange: PackMissingError (code ENOENT) for a pack never committed, and for one deleted", async () => {
      const never = await failureOf(storage.openRange(ABSENT, 0, 1, 1));
      expect(never).toBeInstanceOf(PackMissingError);
      expect(never).toMatchObject({ code: "ENOENT" });
      const { id, size } = await commit("doomed");
      expect((await read(id, 0, 6, size)).toString()).toBe("doomed");
      await storage.delete(id);
      expect(await failureOf(storage.openRange(id, 0, 6, size))).toBeInstanceOf(PackMissingError);
      expect(await failureOf(storage.openRange(id, 2, 2, size))).toBeInstanceOf(PackMissingError);
    });

    it("openRange: PackDamagedError when the row's size is not the pack's, is missing, or the range passes the pack's end; the pack reads right after", async () => {
      const { id, size } = await commit("twelve bytes");
      for (const [start, length, packSize] of [
        [0, 4, size + 1],
        [0, 4, size - 1],
        [0, 4, undefined],
        [11, 2, size],
        [size, 1, size],
      ] as const) {
        const error = await failureOf(storage.openRange(id, start, length, packSize));
        expect(error, `range ${start}+${length} of a pack said to hold ${packSize}`).toBeInstanceOf(
          PackDamagedError,
        );
      }
      expect((await read(id, 0, size, size)).toString()).toBe("twelve bytes");
    });

    it("delete: the pack is gone and no longer listed, the others stay; deleting it again, or a pack never committed, succeeds", async () => {
      const doomed = await commit("doomed");
      const kept = await commit("kept");
      await storage.delete(doomed.id);
      expect((await storage.list()).map((pack) => pack.id)).toEqual([kept.id]);
      await expect(storage.openRange(doomed.id, 0, 1, doomed.size)).rejects.toBeInstanceOf(PackMissingError);
      expect((await read(kept.id, 0, 4, kept.size)).toString()).toBe("kept");
      await expect(storage.delete(doomed.id)).resolves.toBeUndefined();
      await expect(storage.delete(ABSENT)).resolves.toBeUndefined();
    });

    it("keptPacks, forget: a pack read is kept; forgotten, it is not, a range opened before still reads, and the pack reads again; nothing is deleted", async () => {
      expect(storage.keptPacks()).toEqual([]);
      const bytes = new SeededRandom(11).bytes(PACK_BYTES);
      const first = await commit(bytes);
      const second = await commit("second");
      expect((await read(first.id, 0, 10, first.size)).equals(bytes.subarray(0, 10))).toBe(true);
      expect((await read(second.id, 0, 6, second.size)).toString()).toBe("second");
      expect(storage.keptPacks().sort()).toEqual([first.id, second.id].sort());
      const open = await storage.openRange(first.id, 100, 100_000, first.size);
      storage.forget(first.id);
      expect(storage.keptPacks()).toEqual([second.id]);
      expect((await buffer(open.stream(0, 99_999))).equals(bytes.subarray(100, 100_100))).toBe(true);
      open.close();
      expect((await storage.list()).map((pack) => pack.id).sort()).toEqual([first.id, second.id].sort());
      expect((await read(first.id, 0, 10, first.size)).equals(bytes.subarray(0, 10))).toBe(true);
      expect(storage.keptPacks().sort()).toEqual([first.id, second.id].sort());
      expect(() => storage.forget(ABSENT)).not.toThrow();
    });

    it("list: nothing in a fresh storage, then every committed pack once, with when it was written", async () => {
      expect(await storage.list()).toEqual([]);
      // Object stores keep the time to the second.
      const before = Math.floor(Date.now() / 1000) * 1000;
      const ids = [(await commit("one")).id, (await commit("two")).id, (await commit("")).id];
      const listed = await storage.list();
      expect(listed.map((pack) => pack.id).sort()).toEqual([...ids].sort());
      for (const pack of listed) {
        expect(pack.writtenAt).toBeGreaterThanOrEqual(before);
        expect(pack.writtenAt).toBeLessThanOrEqual(Date.now());
      }
    });

    it("check: resolves while the storage can be reached", async () => {
      await expect(storage.check()).resolves.toBeUndefined();
      await commit("x");
      await expect(storage.check()).resolves.toBeUndefined();
    });

    it("close: resolves, and a range opened before reads to its end after", async () => {
      const bytes = new SeededRandom(7).bytes(PACK_BYTES);
      const { id, size } = await commit(bytes);
      const range = await storage.openRange(id, 10, 100_000, size);
      const streamed = buffer(range.stream(0, 99_999));
      closed = true;
      await expect(storage.close()).resolves.toBeUndefined();
      expect((await streamed).equals(bytes.subarray(10, 100_010))).toBe(true);
      expect((await range.readAll()).equals(bytes.subarray(10, 100_010))).toBe(true);
      range.close();
    });
  });
}
