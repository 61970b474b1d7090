import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { compareHashes, sortByHash } from "./hash-order.js";

const hash = () => randomBytes(16).toString("hex");
const byHash = (a: { hash: string }, b: { hash: string }) => compareHashes(a.hash, b.hash);

describe("sortByHash", () => {
  it("sortByHash: the order of comparing whole hashes, repeated hashes in their order, whatever the length", async () => {
    for (const count of [0, 1, 2, 2047, 2048, 5000, 100_000]) {
      // A third repeat a hash before them: equal items must keep their order.
      const items = Array.from({ length: count }, (_, at) => ({ hash: hash(), at }));
      for (let i = 3; i < count; i += 3) items[i]!.hash = items[i - 3]!.hash;
      const sorted = await sortByHash(items, (item) => item.hash, new Pacer());
      expect(sorted).toEqual([...items].sort(byHash));
    }
  });

  it("sortByHash: hashes sharing their first digits, or not hex at all, are sorted as well", async () => {
    const shared = Array.from({ length: 5000 }, (_, at) => ({ hash: `0000${hash().slice(4)}`, at }));
    const mixed = [...shared, ...Array.from({ length: 3000 }, (_, at) => ({ hash: hash(), at }))];
    expect(await sortByHash(mixed, (item) => item.hash, new Pacer())).toEqual([...mixed].sort(byHash));
    const odd = [...mixed, { hash: "ZZZZ", at: -1 }, { hash: "a", at: -2 }].reverse();
    expect(await sortByHash(odd, (item) => item.hash, new Pacer())).toEqual([...odd].sort(byHash));
  });

  it("sortByHash: items in order already come back as a copy in that order; one out of place at the end, all sorted", async () => {
    const items = Array.from({ length: 10_000 }, (_, at) => ({ hash: hash(), at })).sort(byHash);
    const copy = await sortByHash(items, (item) => item.hash, new Pacer());
    expect(copy).toEqual(items);
    expect(copy).not.toBe(items);
    const last = [...items, { hash: "0".repeat(32), at: -1 }];
    expect(await sortByHash(last, (item) => item.hash, new Pacer())).toEqual([...last].sort(byHash));
  });

  it("sortByHash: yields to the event loop when its pacer says a slice is due, and leaves its input as it was", async () => {
    const pacer = new Pacer(0);
    const items = Array.from({ length: 50_000 }, () => hash());
    const before = [...items];
    const sorted = await sortByHash(items, (item) => item, pacer);
    expect(sorted).toEqual([...items].sort(compareHashes));
    expect(items).toEqual(before);
    expect(pacer.pauses).toBeGreaterThan(10);
  });
});
