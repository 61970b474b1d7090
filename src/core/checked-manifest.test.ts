import { expect, it } from "vitest";
import { CheckedManifest, compactManifest } from "./checked-manifest.js";
import { manifestDigest } from "./manifest-digest.js";
import { parseManifest } from "./manifest.js";

const limits = { maxAssets: 1000, maxAssetBytes: 1000, maxManifestBytes: 100_000 };
const pause = { due: () => true, next: () => Promise.resolve() };
/** A hash whose first 8 digits are `n`'s in reverse (many prefixes) unless `n` is under 50 (one). */
const hashOf = (n: number) =>
  (n < 50 ? "00000000" : [...n.toString(16).padStart(8, "0")].reverse().join("")) +
  n.toString(16).padStart(24, "0");

it("compactManifest: opened, gives the entries in the order of their hashes (one hash's in path order), the same in path order (their places, and their paths, hashes and sizes laid out in that order), and the digest parseManifest and manifestDigest give", async () => {
  const manifest: Record<string, { hash: string; size: number }> = {};
  // Hashes falling as the manifest goes, every seventh path naming one hash more than once; some
  // of one 32-bit prefix (the last digits differ), most of their own.
  for (let i = 600; i > 0; i--)
    manifest[`/site/dir ${i % 7}/é${i}.js`] = {
      hash: hashOf(i % 7 === 0 ? 7 : i),
      size: i,
    };
  const parsed = parseManifest(manifest, "site", limits);
  const byPath = [...parsed].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const expected = [...byPath].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  const opened = await new CheckedManifest(compactManifest(manifest, "site", limits)).open(pause);
  expect(opened.entries).toEqual(expected);
  expect(opened.entries).not.toEqual(parsed);
  expect(opened.digest).toBe(manifestDigest(parsed));
  const { places, paths, hashes, sizes } = opened.byPath;
  expect(Array.from(places, (place) => opened.entries[place])).toEqual(byPath);
  expect(paths.split("\0")).toEqual(byPath.map((entry) => entry.path));
  expect(hashes).toBe(byPath.map((entry) => entry.hash).join(""));
  expect(Array.from(sizes)).toEqual(byPath.map((entry) => entry.size));
  const empty = await new CheckedManifest(compactManifest({}, "site", limits)).open(pause);
  expect(empty).toEqual({
    entries: [],
    digest: manifestDigest([]),
    byPath: { places: new Uint32Array(0), paths: "", hashes: "", sizes: new Float64Array(0) },
  });
});

it("compactManifest: a bad manifest, opened, throws INVALID_MANIFEST with parseManifest's message", async () => {
  const bad = {
    "/site/a": { hash: "0".repeat(32), size: 1 },
    "/site/b/../c": { hash: "0".repeat(32), size: 1 },
  };
  const message = (() => {
    try {
      parseManifest(bad, "site", limits);
    } catch (error) {
      return (error as Error).message;
    }
  })();
  const opening = new CheckedManifest(compactManifest(bad, "site", limits)).open(pause);
  await expect(opening).rejects.toMatchObject({ code: "INVALID_MANIFEST", message });
});
