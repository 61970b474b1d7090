import { describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import { checkLimits } from "./limits.js";
import type { SiteFile } from "./walk.js";

const file = (path: string, size = 1): SiteFile => ({
  path,
  absPath: `/r/${path}`,
  size,
  mtimeMs: 0,
  ino: 0,
});
const limits = { maxFiles: 3, maxFileBytes: 100 };
const failure = (files: SiteFile[]) => {
  try {
    checkLimits("/r", files, limits);
  } catch (error) {
    return error as CliError;
  }
  throw new Error("expected a failure");
};

describe("checkLimits", () => {
  it("checkLimits: a site within the limits passes", () => {
    expect(() => checkLimits("/r", [file("a"), file("b", 100)], limits)).not.toThrow();
  });

  it("checkLimits: too many files is refused with the count and the limit", () => {
    const error = failure([file("a"), file("b"), file("c"), file("d")]);
    expect(error.code).toBe("TOO_MANY_FILES");
    expect(error.message).toContain("4 files");
    expect(error.message).toContain("at most 3");
  });

  it("checkLimits: files over the size limit are all named", () => {
    const error = failure([file("ok"), file("big/one.bin", 101), file("two.mp4", 5000)]);
    expect(error.code).toBe("FILE_TOO_LARGE");
    expect(error.message).toContain("big/one.bin (101 B)");
    expect(error.message).toContain("two.mp4 (4.9 KiB)");
    expect(error.message).not.toContain("ok");
  });

  it("checkLimits: an empty site and names the API refuses", () => {
    expect(failure([]).code).toBe("EMPTY_SITE");
    const error = failure([file("a\\b"), file("tab\there")]);
    expect(error.code).toBe("BAD_FILE_NAME");
    expect(error.message).toContain(JSON.stringify("a\\b"));
  });

  it("checkLimits: C1 control characters (U+0080–U+009F) are refused too, each named escaped", () => {
    const error = failure([file("ok.html"), file("next\u0085line.txt"), file("csi\u009b2J.html")]);
    expect(error.code).toBe("BAD_FILE_NAME");
    // Escaped, so the terminal shows the name instead of acting on the character.
    expect(error.message).toContain(String.raw`"next\u0085line.txt"`);
    expect(error.message).toContain(String.raw`"csi\u009b2J.html"`);
    expect(error.message).not.toMatch(/[\u0080-\u009f]/);
    expect(error.message).not.toContain("ok.html");
  });

  it("checkLimits: a path of more than 1,024 bytes of UTF-8 (with its leading /) is refused in one line, before anything is sent", () => {
    expect(() => checkLimits("/r", [file(`${"é".repeat(511)}x`)], limits)).not.toThrow();
    const error = failure([file("ok.html"), file(`${"é".repeat(511)}xy`)]);
    expect(error.code).toBe("BAD_FILE_NAME");
    expect(error.message).toBe(
      `a file's path is longer than 1024 bytes, the most a deploy accepts: ${JSON.stringify("é".repeat(80))}…`,
    );
  });
});
