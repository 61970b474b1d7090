import { describe, expect, it } from "vitest";
import { contentRange, parseRange, unsatisfiedRange } from "./byte-range.js";

describe("byte ranges", () => {
  it("parseRange: reads first-last, open-ended and suffix ranges", () => {
    expect(parseRange("bytes=0-9", 100)).toEqual({ kind: "range", start: 0, end: 9 });
    expect(parseRange("bytes=90-", 100)).toEqual({ kind: "range", start: 90, end: 99 });
    expect(parseRange("bytes=-10", 100)).toEqual({ kind: "range", start: 90, end: 99 });
    expect(parseRange("Bytes = 5 - 5", 100)).toEqual({ kind: "range", start: 5, end: 5 });
  });

  it("parseRange: clamps a last position and a suffix beyond the end", () => {
    expect(parseRange("bytes=50-500", 100)).toEqual({ kind: "range", start: 50, end: 99 });
    expect(parseRange("bytes=-500", 100)).toEqual({ kind: "range", start: 0, end: 99 });
  });

  it("parseRange: a range starting at or past the end cannot be satisfied", () => {
    expect(parseRange("bytes=100-", 100)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=100-200", 100)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=-0", 100)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=0-", 0)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=-5", 0)).toEqual({ kind: "unsatisfiable" });
  });

  it("parseRange: missing, malformed and multiple ranges mean the whole representation", () => {
    for (const header of [
      undefined,
      "",
      "bytes=",
      "bytes=-",
      "bytes=5-3",
      "bytes=a-b",
      "items=0-1",
      "bytes=0-1,5-6",
      "bytes=0-1, -2",
    ]) {
      expect(parseRange(header, 100), String(header)).toEqual({ kind: "whole" });
    }
  });

  it("contentRange: formats satisfied and unsatisfied ranges", () => {
    expect(contentRange(0, 9, 100)).toBe("bytes 0-9/100");
    expect(unsatisfiedRange(100)).toBe("bytes */100");
  });
});
