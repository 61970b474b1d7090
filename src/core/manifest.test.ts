import { describe, expect, it } from "vitest";
import { InvalidManifestError } from "./errors.js";
import { MAX_PATH_BYTES, parseManifest, type ManifestLimits } from "./manifest.js";

const SLUG = "brave-otter-k3x9q";
const HASH = "0123456789abcdef0123456789abcdef";
const limits: ManifestLimits = { maxAssets: 3, maxAssetBytes: 1000, maxManifestBytes: 4096 };

/** The message of the InvalidManifestError that parsing `manifest` throws. */
function refusal(manifest: unknown, given: ManifestLimits = limits): string {
  try {
    parseManifest(manifest, SLUG, given);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidManifestError);
    return (error as Error).message;
  }
  throw new Error("expected an InvalidManifestError, nothing was thrown");
}

const key = (path: string) => `/${SLUG}${path}`;

describe("parseManifest", () => {
  it("parseManifest: returns each entry with its path inside the site, hash and size", () => {
    const entries = parseManifest(
      { [key("/index.html")]: { hash: HASH, size: 12 }, [key("/a/b c.txt")]: { hash: HASH, size: 0 } },
      SLUG,
      limits,
    );
    expect(entries).toEqual([
      { path: "/index.html", hash: HASH, size: 12 },
      { path: "/a/b c.txt", hash: HASH, size: 0 },
    ]);
    expect(parseManifest({}, SLUG, limits)).toEqual([]);
  });

  it("parseManifest: the manifest must be an object of paths", () => {
    for (const bad of [null, [], "x", 1, undefined]) {
      expect(refusal(bad)).toBe("manifest must be an object of asset paths");
    }
  });

  it("parseManifest: at most maxAssets entries", () => {
    const three = Object.fromEntries([1, 2, 3].map((n) => [key(`/${n}`), { hash: HASH, size: 1 }]));
    expect(parseManifest(three, SLUG, limits)).toHaveLength(3);
    expect(refusal({ ...three, [key("/4")]: { hash: HASH, size: 1 } })).toBe(
      "manifest has 4 assets; the limit is 3",
    );
  });

  it("parseManifest: a path is at most MAX_PATH_BYTES (1,024) bytes of UTF-8, counted without the slug; one more is refused naming the limit", () => {
    expect(MAX_PATH_BYTES).toBe(1024);
    // "é" is two bytes of UTF-8: 1 + 2 × 511 + 1 = 1,024 bytes.
    const longest = `/${"é".repeat(511)}x`;
    expect(parseManifest({ [key(longest)]: { hash: HASH, size: 1 } }, SLUG, limits)).toEqual([
      { path: longest, hash: HASH, size: 1 },
    ]);
    const over = `/${"é".repeat(511)}xy`;
    expect(refusal({ [key(over)]: { hash: HASH, size: 1 } })).toBe(
      `manifest key "${key(over).slice(0, 120)}…" has a path of more than 1024 bytes of UTF-8; the limit is 1024 bytes`,
    );
    // 30 MiB, as issue 31 sent it: refused by its length, the message still 120 characters of it.
    const huge = refusal({ [key(`/${"a".repeat(30 * 1024 * 1024)}`)]: { hash: HASH, size: 1 } });
    expect(huge).toContain("has a path of more than 1024 bytes");
    expect(huge.length).toBeLessThan(300);
  });

  it("parseManifest: the paths together are at most maxManifestBytes of UTF-8; past it, refused naming the limit", () => {
    // Three paths of 1,024 bytes and one of 1,024 more: 4,096 exactly, then one byte over.
    const path = (n: number, bytes: number) => `/${n}${"a".repeat(bytes - 2)}`;
    const wide = { ...limits, maxAssets: 10 };
    const exact = Object.fromEntries([1, 2, 3, 4].map((n) => [key(path(n, 1024)), { hash: HASH, size: 1 }]));
    expect(parseManifest(exact, SLUG, wide)).toHaveLength(4);
    expect(refusal({ ...exact, [key("/5")]: { hash: HASH, size: 1 } }, wide)).toBe(
      "manifest paths take more than 4096 bytes of UTF-8 together; the limit is 4096 (MAX_MANIFEST_BYTES)",
    );
  });

  it("parseManifest: every key starts with /<slug>/", () => {
    expect(refusal({ "/other-slug/a.txt": { hash: HASH, size: 1 } })).toBe(
      `manifest key "/other-slug/a.txt" must start with "/${SLUG}/"`,
    );
    expect(refusal({ [`/${SLUG}`]: { hash: HASH, size: 1 } })).toContain("must start with");
    expect(refusal({ [`${SLUG}/a.txt`]: { hash: HASH, size: 1 } })).toContain("must start with");
  });

  it("parseManifest: no backslash and no control character (C0, DEL, C1) in a path", () => {
    for (const path of ["/a\\b.txt", "/a\u0000b", "/a\nb", "/a\u007fb", "/a\u0085b", "/a\u009fb"]) {
      expect(refusal({ [key(path)]: { hash: HASH, size: 1 } }), JSON.stringify(path)).toContain(
        "holds a backslash or a control character",
      );
    }
    // Other non-ASCII characters are fine.
    expect(parseManifest({ [key("/é/\u00a0.txt")]: { hash: HASH, size: 1 } }, SLUG, limits)).toHaveLength(1);
  });

  it("parseManifest: no empty, . or .. segment", () => {
    for (const path of ["/", "/a//b", "/a/", "/./a", "/a/.", "/../a", "/a/../b", "/a/.."]) {
      expect(refusal({ [key(path)]: { hash: HASH, size: 1 } }), path).toContain(
        'has an empty, "." or ".." segment',
      );
    }
    expect(parseManifest({ [key("/.well-known/a..b")]: { hash: HASH, size: 1 } }, SLUG, limits)).toHaveLength(
      1,
    );
    // Three dots, or dots with more, are names.
    for (const path of ["/...", "/a/.../b", "/..a", "/a/.b."]) {
      expect(parseManifest({ [key(path)]: { hash: HASH, size: 1 } }, SLUG, limits), path).toHaveLength(1);
    }
  });

  it("parseManifest: each value is an object { hash, size }", () => {
    for (const value of [null, [], "x", 3]) {
      expect(refusal({ [key("/a")]: value })).toBe(
        `manifest["${key("/a")}"] must be an object { hash, size }`,
      );
    }
  });

  it("parseManifest: hash is exactly 32 lowercase hexadecimal characters", () => {
    for (const hash of [
      HASH.toUpperCase(),
      HASH.slice(1),
      `${HASH}0`,
      `${HASH.slice(1)}g`,
      1234,
      undefined,
    ]) {
      expect(refusal({ [key("/a")]: { hash, size: 1 } }), String(hash)).toBe(
        `manifest["${key("/a")}"].hash must be 32 lowercase hex characters`,
      );
    }
  });

  it("parseManifest: size is a non-negative integer no larger than maxAssetBytes", () => {
    for (const size of [-1, 1.5, "1", Number.NaN, Number.POSITIVE_INFINITY, undefined]) {
      expect(refusal({ [key("/a")]: { hash: HASH, size } }), String(size)).toBe(
        `manifest["${key("/a")}"].size must be a non-negative integer`,
      );
    }
    expect(parseManifest({ [key("/a")]: { hash: HASH, size: 1000 } }, SLUG, limits)).toEqual([
      { path: "/a", hash: HASH, size: 1000 },
    ]);
    expect(refusal({ [key("/a")]: { hash: HASH, size: 1001 } })).toBe(
      `manifest["${key("/a")}"] is 1001 bytes; the limit is 1000 bytes per asset`,
    );
  });

  it("parseManifest: a hostile key is quoted with its control characters escaped", () => {
    expect(refusal({ "/x\n/evil": { hash: HASH, size: 1 } })).toBe(
      `manifest key "/x\\n/evil" must start with "/${SLUG}/"`,
    );
  });
});
