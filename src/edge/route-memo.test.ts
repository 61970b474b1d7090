import { describe, expect, it } from "vitest";
import { RouteMemo } from "./route-memo.js";

const site = () => ({
  projectSlug: "blue-fox-k3",
  revisionId: "aaaaaaaaa1",
  immutable: false,
  publishedAt: 0,
});

describe("RouteMemo", () => {
  it("remembers routes per site object: a new object (after a write) starts empty", () => {
    const memo = new RouteMemo();
    const old = site();
    memo.set(old, "/", "not-found");
    expect(memo.get(old, "/")).toBe("not-found");
    expect(memo.get(site(), "/")).toBeUndefined();
  });

  it("never holds more than maxRoutes entries", () => {
    const memo = new RouteMemo(10);
    const s = site();
    for (let i = 0; i < 1000; i++) {
      memo.set(s, `/p${i}`, "not-found");
      expect(memo.size).toBeLessThanOrEqual(10);
    }
    expect(memo.get(s, "/p999")).toBe("not-found");
  });

  it("does not count a target twice, and never keeps overlong targets or anything at 0", () => {
    const memo = new RouteMemo(10);
    const s = site();
    memo.set(s, "/a", "not-found");
    memo.set(s, "/a", "bad-request");
    expect(memo.size).toBe(1);
    memo.set(s, `/${"x".repeat(5000)}`, "not-found");
    expect(memo.size).toBe(1);
    const none = new RouteMemo(0);
    none.set(s, "/a", "not-found");
    expect(none.get(s, "/a")).toBeUndefined();
  });

  it("RouteMemo.set: counts each new target once and drops everything only once full", () => {
    const memo = new RouteMemo(3);
    const s = site();
    memo.set(s, "/a", "not-found");
    memo.set(s, "/b", "not-found");
    expect(memo.size).toBe(2);
    memo.set(s, "/c", "not-found");
    expect([memo.get(s, "/a"), memo.size]).toEqual(["not-found", 3]);
    // Full: the next new target starts afresh.
    memo.set(s, "/d", "not-found");
    expect([memo.get(s, "/a"), memo.get(s, "/d"), memo.size]).toEqual([undefined, "not-found", 1]);
  });

  it("RouteMemo.set: keeps a target of exactly 1,024 characters, not one of 1,025", () => {
    const memo = new RouteMemo();
    const s = site();
    memo.set(s, `/${"x".repeat(1023)}`, "not-found");
    memo.set(s, `/${"y".repeat(1024)}`, "not-found");
    expect(memo.get(s, `/${"x".repeat(1023)}`)).toBe("not-found");
    expect(memo.get(s, `/${"y".repeat(1024)}`)).toBeUndefined();
  });
});
