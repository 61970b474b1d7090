import { describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import {
  contentCharge,
  freshContentCharge,
  manifestCharge,
  REVISION_BYTES,
  rowCharge,
} from "./quota-charges.js";

const entry = (path: string, hash: string, size: number) => ({ path, hash, size });

describe("quota charges", () => {
  it("rowCharge: 256 bytes and 4 per UTF-8 byte of the path, 16 per byte past 768 bytes", () => {
    expect(rowCharge("/a.html")).toBe(256 + 4 * 7);
    expect(rowCharge("/é")).toBe(256 + 4 * 3);
    expect(rowCharge(`/${"x".repeat(767)}`)).toBe(256 + 4 * 768);
    expect(rowCharge(`/${"x".repeat(768)}`)).toBe(256 + 16 * 769);
  });

  it("contentCharge: fresh content once at its size; three times when a compressible path names it and it is over the threshold", async () => {
    const entries = [
      entry("/big.txt", "a", 2000),
      entry("/copy.bin", "a", 2000),
      entry("/small.css", "b", 100),
      entry("/photo.png", "c", 5000),
      entry("/kept.html", "d", 9000),
    ];
    const fresh = new Map([
      ["a", 2000],
      ["b", 100],
      ["c", 5000],
    ]);
    expect(await contentCharge(entries, fresh, 1000, new Pacer())).toBe(3 * 2000 + 100 + 5000);
    expect(await contentCharge(entries, fresh, 0, new Pacer())).toBe(3 * 2000 + 3 * 100 + 5000);
  });

  it("freshContentCharge: contentCharge's sum from the fresh bytes and the sizes of the fresh hashes a compressible path names", () => {
    // As contentCharge's case above: a (2000, /big.txt) and b (100, /small.css) have a compressible path.
    expect(freshContentCharge(2000 + 100 + 5000, [2000, 100], 1000)).toBe(3 * 2000 + 100 + 5000);
    expect(freshContentCharge(2000 + 100 + 5000, [2000, 100], 0)).toBe(3 * 2000 + 3 * 100 + 5000);
  });

  it("manifestCharge: a revision, its rows and its distinct content as if the project kept nothing", async () => {
    const entries = [entry("/a.bin", "a", 10), entry("/b.bin", "a", 10)];
    expect(await manifestCharge(entries, 0, new Pacer())).toBe(REVISION_BYTES + 2 * (256 + 4 * 6) + 10);
  });
});
