import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { manifestDigest } from "./manifest-digest.js";
import type { ManifestEntry } from "./manifest.js";

/** 300 entries in path order: more than a sort handles by insertion alone. */
const ENTRIES: ManifestEntry[] = Array.from({ length: 300 }, (_, i) => ({
  path: `/dir${i % 7}/file-${String(i).padStart(3, "0")}.html`,
  hash: i.toString(16).padStart(32, "0"),
  size: i * 10,
})).sort((a, b) => (a.path < b.path ? -1 : 1));

/** Contract §3's definition, written out: SHA-256 of `path NUL hash NUL size LF` in path order. */
const expected = createHash("sha256")
  .update(ENTRIES.map((e) => `${e.path}\0${e.hash}\0${e.size}\n`).join(""))
  .digest("hex");

describe("manifestDigest", () => {
  it("manifestDigest: is contract §3's SHA-256 of the entries in path order, whatever order they come in", () => {
    let seed = 5;
    const random = () => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647;
    const orders = [ENTRIES, [...ENTRIES].reverse()];
    for (let round = 0; round < 5; round++) orders.push([...ENTRIES].sort(() => random() - 0.5));
    for (const order of orders) expect(manifestDigest(order)).toBe(expected);
  });

  it("manifestDigest: another hash, size or path of one entry gives another digest", () => {
    const changed = [
      { ...ENTRIES[7]!, hash: "f".repeat(32) },
      { ...ENTRIES[7]!, size: ENTRIES[7]!.size + 1 },
      { ...ENTRIES[7]!, path: `${ENTRIES[7]!.path}x` },
    ];
    for (const entry of changed) {
      const entries = ENTRIES.map((e, i) => (i === 7 ? entry : e));
      expect(manifestDigest(entries)).not.toBe(expected);
    }
  });
});
