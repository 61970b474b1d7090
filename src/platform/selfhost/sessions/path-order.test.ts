import { describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { pathOrderFits, PathOrderRows, placesByPath, placesFit } from "./path-order.js";

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

  /** `entries` in path order as a worker packs them (core/checked-manifest.ts), for `places`. */
  const packedFor = (places: Uint32Array) => {
    const byPath = Array.from(places, (place) => entries[place]!);
    return {
      places,
      paths: byPath.map((entry) => entry.path).join("\0"),
      hashes: byPath.map((entry) => entry.hash).join(""),
      sizes: Float64Array.from(byPath, (entry) => entry.size),
    };
  };

  it("pathOrderFits: fits when its places fit and it holds a path, a hash and a size a place; a path, a hash's digit or a size too few or too many does not", async () => {
    const pacer = new Pacer(0);
    const packed = packedFor(await placesByPath(entries, pacer));
    expect(await pathOrderFits(packed, entries, entries, pacer)).toBe(true);
    const unfit = [
      { ...packed, places: Uint32Array.from([0, 0, 1, 2, 3]) },
      { ...packed, paths: packed.paths.replace("\0", "") },
      { ...packed, paths: `${packed.paths}\0` },
      { ...packed, hashes: packed.hashes.slice(1) },
      { ...packed, sizes: packed.sizes.subarray(1) },
    ];
    for (const byPath of unfit) expect(await pathOrderFits(byPath, entries, entries, pacer)).toBe(false);
    const none = { places: new Uint32Array(0), paths: "", hashes: "", sizes: new Float64Array(0) };
    expect(await pathOrderFits(none, [], [], pacer)).toBe(true);
    expect(await pathOrderFits({ ...none, paths: "/a" }, [], [], pacer)).toBe(false);
  });

  it("PathOrderRows: the rows in path order a slice at a time, the same read from a packing or off the entries by their places", async () => {
    const places = await placesByPath(entries, new Pacer(0));
    const byPath = Array.from(places, (place) => entries[place]!);
    const columns = (rows: typeof byPath) => ({
      paths: rows.map((entry) => entry.path),
      hashes: rows.map((entry) => entry.hash),
      sizes: rows.map((entry) => entry.size),
    });
    for (const rows of [new PathOrderRows(entries, places), new PathOrderRows(entries, packedFor(places))]) {
      expect(rows.next(2)).toEqual(columns(byPath.slice(0, 2)));
      expect(rows.next(2)).toEqual(columns([]));
      expect(rows.next(5)).toEqual(columns(byPath.slice(2)));
    }
  });
});
