import { describe, expect, it } from "vitest";
import { Pacer } from "./event-loop.js";
import { sortPaced } from "./paced-sort.js";

describe("sortPaced", () => {
  it("sortPaced: the order Array.prototype.sort gives, equal items in their order, whatever the length", async () => {
    for (const count of [0, 1, 2, 1023, 1024, 1025, 5000, 20_000]) {
      const items = Array.from({ length: count }, (_, i) => ({ key: (i * 7919) % 97, at: i }));
      const byKey = (a: { key: number }, b: { key: number }) => a.key - b.key;
      expect(await sortPaced(items, byKey, new Pacer())).toEqual([...items].sort(byKey));
    }
  });

  it("sortPaced: yields to the event loop when its pacer says a slice is due", async () => {
    const pacer = new Pacer(0);
    const items = Array.from({ length: 10_000 }, (_, i) => 10_000 - i);
    const sorted = await sortPaced(items, (a, b) => a - b, pacer);
    expect(sorted[0]).toBe(1);
    expect(sorted.at(-1)).toBe(10_000);
    expect(pacer.pauses).toBeGreaterThan(10);
  });

  it("sortPaced: leaves its input as it was", async () => {
    const items = [3, 1, 2];
    await sortPaced(items, (a, b) => a - b, new Pacer());
    expect(items).toEqual([3, 1, 2]);
  });
});
