import { describe, expect, it } from "vitest";
import { formatCount, plural } from "./format.js";

describe("formatCount", () => {
  it("formatCount: groups thousands as en-US does", () => {
    for (const value of [0, 7, 999, 1000, 12_345, -1_234_567, 100_000, Number.MAX_SAFE_INTEGER, 1.5]) {
      expect(formatCount(value)).toBe(value.toLocaleString("en-US"));
    }
    expect(plural(10_000, "file")).toBe("10,000 files");
  });
});
