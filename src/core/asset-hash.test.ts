import { hash as blake3 } from "blake3-jit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AssetHasher, hashAsset, hashExtension } from "./asset-hash.js";

describe("hashAsset", () => {
  it("hashAsset: matches Cloudflare's published vectors", async () => {
    expect(await hashAsset(Buffer.from("Content of file-1"), "/site/file-1.txt")).toBe(
      "0de3dd5df907418e9730fd2bd747bd5e",
    );
    expect(await hashAsset(Buffer.from("something-binary"), "/x/a.greg")).toBe(
      "80e40c1f2422528cb2fba3f9389ce315",
    );
  });

  it("AssetHasher.reset: one instance hashes file after file as fresh ones do", async () => {
    const hasher = await AssetHasher.create();
    for (const [content, path] of [
      ["Content of file-1", "/a/file-1.txt"],
      ["something-binary", "/b.greg"],
      ["", "/empty"],
    ] as const) {
      hasher.reset().updateBase64(Buffer.from(content).toString("base64"));
      expect(hasher.finish(hashExtension(path))).toBe(await hashAsset(Buffer.from(content), path));
    }
  });

  it("hashExtension: takes the last extension without the dot", () => {
    expect(hashExtension("/a/b.tar.gz")).toBe("gz");
    expect(hashExtension("/a/README")).toBe("");
    expect(hashExtension("/a/.htaccess")).toBe("");
  });
});

/** The asset hash by another implementation: blake3-jit (pure JavaScript), all at once. */
function independentHash(text: Buffer, extension: string): string {
  const input = Buffer.concat([text, Buffer.from(extension, "utf8")]);
  return Buffer.from(blake3(input, 16)).toString("hex");
}

/** Deterministic bytes from a seed (xorshift), so a failing case can be replayed. */
function bytesFrom(seed: number, size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  let state = seed | 1;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

describe.each(["native", "wasm"] as const)("AssetHasher (%s) against an independent BLAKE3", (backend) => {
  // Base64 of 49,152 bytes is 65,536 characters: one string piece exactly.
  const sizes = fc.oneof(
    fc.integer({ min: 0, max: 200_000 }),
    fc.constantFrom(49_151, 49_152, 49_153, 98_304, 98_305),
  );

  it("AssetHasher.updateBase64: random contents cut anywhere, pieces as strings or bytes, give blake3-jit's hash", async () => {
    const hasher = await AssetHasher.create(backend);
    fc.assert(
      fc.property(
        sizes,
        fc.integer(),
        fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 6 }),
        fc.constantFrom("", "html", "js", "ñ", "日本"),
        (size, seed, cuts, extension) => {
          const text = Buffer.from(bytesFrom(seed, size).toString("base64"), "latin1");
          const borders = [...new Set(cuts.map(([at]) => at % (text.length + 1)))].sort((a, b) => a - b);
          hasher.reset();
          let start = 0;
          for (const [i, end] of [...borders, text.length].entries()) {
            const piece = text.subarray(start, end);
            hasher.updateBase64(cuts[i]?.[1] === false ? piece : piece.toString("latin1"));
            start = end;
          }
          expect(hasher.finish(extension)).toBe(independentHash(text, extension));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("AssetHasher.updateBase64: a string counts as its UTF-8 bytes, a surrogate pair across a piece border included", async () => {
    const hasher = await AssetHasher.create(backend);
    for (const before of [65_535, 65_534, 65_536, 131_071]) {
      const text = `${"A".repeat(before)}😀é${"b".repeat(10)}`;
      hasher.reset().updateBase64(text);
      expect(hasher.finish("txt")).toBe(independentHash(Buffer.from(text, "utf8"), "txt"));
    }
  });

  it("hashAsset: contents of any size give blake3-jit's hash of their base64", async () => {
    for (const size of [0, 1, 2, 3, 49_151, 49_152, 49_153, 1_000_001]) {
      const bytes = bytesFrom(size + 7, size);
      expect(await hashAsset(bytes, "/a/b.css")).toBe(
        independentHash(Buffer.from(bytes.toString("base64"), "latin1"), "css"),
      );
    }
  });
});
