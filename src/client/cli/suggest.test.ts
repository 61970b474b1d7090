import { describe, expect, it } from "vitest";
import { closest, editDistance } from "./suggest.js";

describe("suggest", () => {
  it("editDistance: insertions, deletions, substitutions, and a swap counts once", () => {
    expect(editDistance("status", "status")).toBe(0);
    expect(editDistance("stauts", "status")).toBe(1);
    expect(editDistance("lst", "list")).toBe(1);
    expect(editDistance("abc", "xyz")).toBe(3);
  });

  it("closest: nothing for words far from every candidate", () => {
    expect(closest("deploy", ["status", "list"])).toBeUndefined();
    expect(closest("prev", ["preview", "reset"])).toBe("preview");
  });

  it("editDistance: from or to the empty word is the other word's length", () => {
    expect(editDistance("abc", "")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("editDistance: only a swap of the same two letters counts once", () => {
    expect(editDistance("ab", "ca")).toBe(2);
    expect(editDistance("ab", "bc")).toBe(2);
    expect(editDistance("ab", "ba")).toBe(1);
  });

  it("closest: the first of equally close candidates, and nothing among none", () => {
    expect(closest("lis", ["list", "lisp"])).toBe("list");
    expect(closest("x", [])).toBeUndefined();
  });

  it("closest: two mistakes allowed in a long word, one in a short one", () => {
    expect(closest("credntal", ["credential"])).toBe("credential");
    expect(closest("xyst", ["list"])).toBeUndefined();
  });

  it("closest: a prefix of three characters or more, not of two", () => {
    expect(closest("pre", ["reset", "preview"])).toBe("preview");
    expect(closest("pr", ["preview"])).toBeUndefined();
  });
});
