import { statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { describeBytes, freeBytesOf, isOutOfSpace, lacksRoomFor, UNLIMITED } from "./storage-limits.js";

const limits = (minFreeBytes: number, free: number) => ({ minFreeBytes, freeBytes: async () => free });

describe("storage limits", () => {
  it("lacksRoomFor: true exactly when the free bytes left after the incoming ones fall below MIN_FREE_BYTES", async () => {
    expect(await lacksRoomFor(limits(100, 1000), 900)).toBe(false);
    expect(await lacksRoomFor(limits(100, 1000), 901)).toBe(true);
    expect(await lacksRoomFor(limits(100, 99), 0)).toBe(true);
    expect(await lacksRoomFor(limits(100, 100), 0)).toBe(false);
  });

  it("lacksRoomFor: never true when MIN_FREE_BYTES is 0 (no guard), however full the disk", async () => {
    expect(await lacksRoomFor(limits(0, 0), 1)).toBe(false);
    expect(await lacksRoomFor(limits(-1, 0), 1)).toBe(false);
    expect(await lacksRoomFor(UNLIMITED, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it("lacksRoomFor: with MIN_FREE_BYTES 1, true for a write larger than the free bytes", async () => {
    expect(await lacksRoomFor(limits(1, 10), 10)).toBe(true);
    expect(await lacksRoomFor(limits(1, 10), 9)).toBe(false);
  });

  it("isOutOfSpace: true for ENOSPC, EDQUOT and SQLITE_FULL, false for other errors and non-errors", () => {
    for (const code of ["ENOSPC", "EDQUOT", "SQLITE_FULL"]) {
      expect(isOutOfSpace(Object.assign(new Error("full"), { code }))).toBe(true);
    }
    for (const error of [new Error("ENOSPC"), { code: "EIO" }, { code: "" }, null, undefined, "ENOSPC"]) {
      expect(isOutOfSpace(error)).toBe(false);
    }
  });

  it("describeBytes: the exact bytes and the MiB to one decimal", () => {
    expect(describeBytes(0)).toBe("0 bytes (0.0 MiB)");
    expect(describeBytes(1_572_864)).toBe("1572864 bytes (1.5 MiB)");
  });

  it("freeBytesOf: the bytes an unprivileged process may use on the directory's file system", async () => {
    const dir = tmpdir();
    const stats = statfsSync(dir);
    const free = await freeBytesOf(dir)();
    // The file system is shared with other writers: compare with a reading on either side.
    expect(free).toBeGreaterThan(0);
    expect(free % stats.bsize).toBe(0);
    expect(Math.abs(free - stats.bavail * stats.bsize)).toBeLessThan(stats.bsize * stats.blocks * 0.01 + 1);
    expect(free).toBeLessThanOrEqual(stats.blocks * stats.bsize);
  });
});
