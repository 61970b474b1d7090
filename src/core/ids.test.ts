import { describe, expect, it } from "vitest";
import { isProjectSlug } from "./formats.js";
import {
  digestsEqual,
  generateAccountId,
  generateApiToken,
  generateOpaqueId,
  generateProjectSlug,
  generateRevisionId,
  sha256Hex,
} from "./ids.js";

const many = <T>(make: () => T, count = 200): T[] => Array.from({ length: count }, make);

describe("ids", () => {
  it("generateProjectSlug: two words and five of a-z0-9, always a valid slug, rarely repeated", () => {
    const slugs = many(generateProjectSlug);
    for (const slug of slugs) {
      expect(slug).toMatch(/^[a-z]+-[a-z]+-[a-z0-9]{5}$/);
      expect(isProjectSlug(slug)).toBe(true);
    }
    expect(new Set(slugs).size).toBeGreaterThan(190);
  });

  it("generateRevisionId: ten of a-z0-9, every character used over many ids", () => {
    const ids = many(generateRevisionId, 500);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]{10}$/);
    expect(new Set(ids.join("")).size).toBe(36);
  });

  it("generateOpaqueId: 128 random bits, URL-safe (22 base64url characters)", () => {
    const ids = many(generateOpaqueId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("generateApiToken: sdp_ and 256 random bits", () => {
    const tokens = many(generateApiToken);
    for (const token of tokens) expect(token).toMatch(/^sdp_[A-Za-z0-9_-]{43}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it("generateAccountId: 32 lowercase hexadecimal characters", () => {
    expect(generateAccountId()).toMatch(/^[0-9a-f]{32}$/);
    expect(generateAccountId()).not.toBe(generateAccountId());
  });

  it("sha256Hex: the hex SHA-256 of the string's UTF-8", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("digestsEqual: equal digests only, whatever their lengths", () => {
    const a = sha256Hex("a");
    expect(digestsEqual(a, a)).toBe(true);
    expect(digestsEqual(a, sha256Hex("b"))).toBe(false);
    expect(digestsEqual(a, a.slice(0, 62))).toBe(false);
    expect(digestsEqual("", "")).toBe(true);
  });
});
