import { describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { placesByPath, placesFit } from "./path-order.js";

const entries = ["/b", "/a/z", "/a", "/c", "/a-b"].map((path, i) => ({
  path,
  hash: `${i}`.repeat(32),
  size: i,
}));

describe("path order", () => {
  it("placesByPath: the entries' places in the order of their paths", async () => {
    const places = await placesByPath(entries, new Pacer(0));
    expect(Array.from(places, (place) => entries[place]!.path)).toEqual(["/a", "/a-b", "/a/z", "/b", "/c"]);
  });

  it("placesFit: the places of the entries as given, each once, fit; a place repeated or out of range, one missing, or the entries reordered do not", async () => {
    const pacer = new Pacer(0);
    const places = await placesByPath(entries, pacer);
    expect(await placesFit(places, entries, entries, pacer)).toBe(true);
    expect(await placesFit(Uint32Array.from([2, 2, 1, 0, 3]), entries, entries, pacer)).toBe(false);
    expect(await placesFit(Uint32Array.from([2, 4, 1, 0, 5]), entries, entries, pacer)).toBe(false);
    expect(await placesFit(places.subarray(1), entries, entries, pacer)).toBe(false);
    expect(await placesFit(places, [...entries].reverse(), entries, pacer)).toBe(false);
  });
});
