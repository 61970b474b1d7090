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
