import { describe, expect, it } from "vitest";
import { formatBytes, formatCount, formatDuration, formatTime, plural } from "./format.js";

describe("format", () => {
  it("formatCount: groups thousands as en-US does", () => {
    // Fractions and numbers past the safe integers go to toLocaleString (three decimals at most).
    for (const value of [
      0,
      7,
      999,
      1000,
      12_345,
      -1_234_567,
      100_000,
      Number.MAX_SAFE_INTEGER,
      1.5,
      1234.5,
      1.23456,
      2 ** 60,
    ]) {
      expect(formatCount(value)).toBe(value.toLocaleString("en-US"));
    }
    expect(plural(10_000, "file")).toBe("10,000 files");
  });

  it("plural: singular for exactly one, plural for none and many", () => {
    expect(plural(1, "file")).toBe("1 file");
    expect(plural(0, "file")).toBe("0 files");
    expect(plural(2, "path")).toBe("2 paths");
  });

  it("formatBytes: bytes below 1 KiB, then one decimal in the largest unit under 1024, up to TiB", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023.6)).toBe("1024 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1024)).toBe("1.0 KiB");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(1024 * 1024 - 1)).toBe("1024.0 KiB");
    expect(formatBytes(1024 * 1024)).toBe("1.0 MiB");
    expect(formatBytes(25 * 1024 ** 3)).toBe("25.0 GiB");
    expect(formatBytes(1024 ** 4)).toBe("1.0 TiB");
    // TiB is the largest unit: it grows past 1024 instead of a unit that does not exist.
    expect(formatBytes(2048 * 1024 ** 4)).toBe("2048.0 TiB");
  });

  it("formatDuration: milliseconds below a second, seconds with a decimal below a minute, then minutes and two-digit seconds", () => {
    expect(formatDuration(0)).toBe("0ms");
    expect(formatDuration(849.6)).toBe("850ms");
    expect(formatDuration(999)).toBe("999ms");
    expect(formatDuration(1000)).toBe("1.0s");
    expect(formatDuration(4240)).toBe("4.2s");
    expect(formatDuration(59_999)).toBe("60.0s");
    expect(formatDuration(60_000)).toBe("1m00s");
    expect(formatDuration(185_000)).toBe("3m05s");
    expect(formatDuration(3_981_000)).toBe("66m21s");
  });

  it("formatTime: the date and minute of an ISO time, in UTC", () => {
    expect(formatTime("2026-12-04T19:13:02.817Z")).toBe("2026-12-04 19:13 UTC");
  });
});
