import { describe, expect, it } from "vitest";
import { hashAsset, hashExtension } from "./asset-hash.js";

describe("hashAsset", () => {
  it("hashAsset: matches Cloudflare's published vectors", async () => {
    expect(await hashAsset(Buffer.from("Content of file-1"), "/site/file-1.txt")).toBe(
      "0de3dd5df907418e9730fd2bd747bd5e",
    );
    expect(await hashAsset(Buffer.from("something-binary"), "/x/a.greg")).toBe(
      "80e40c1f2422528cb2fba3f9389ce315",
    );
  });

  it("hashExtension: takes the last extension without the dot", () => {
    expect(hashExtension("/a/b.tar.gz")).toBe("gz");
    expect(hashExtension("/a/README")).toBe("");
    expect(hashExtension("/a/.htaccess")).toBe("");
  });
});
