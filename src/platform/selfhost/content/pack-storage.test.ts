import { describe, expect, it } from "vitest";
import { isPackId, PackDamagedError, PackMissingError } from "./pack-storage.js";

describe("pack-storage", () => {
  it("isPackId: exactly 24 lowercase hex digits, nothing before or after", () => {
    expect(isPackId("0123456789abcdef01234567")).toBe(true);
    for (const bad of [
      "",
      "0123456789abcdef0123456",
      "0123456789abcdef012345678",
      "0123456789ABCDEF01234567",
      "x0123456789abcdef01234567",
      "0123456789abcdef01234567x",
      "0123456789abcdeg01234567",
      "../23456789abcdef01234567",
    ]) {
      expect(isPackId(bad)).toBe(false);
    }
  });

  it("PackMissingError: code ENOENT, as a missing file's; PackDamagedError: an Error with its message", () => {
    const missing = new PackMissingError("pack x is missing");
    expect(missing.code).toBe("ENOENT");
    expect(missing.message).toBe("pack x is missing");
    expect(new PackDamagedError("short")).toBeInstanceOf(Error);
  });
});
