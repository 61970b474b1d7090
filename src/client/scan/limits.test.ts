import { describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import { checkLimits } from "./limits.js";
import type { SiteFile } from "./walk-state.js";

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

describe("checkLimits' messages", () => {
  const SERVER = { limit: "the server's limit", hint: " (see /limits.)" };
  const refusal = (files: SiteFile[], source?: typeof SERVER) => {
    try {
      checkLimits("/r", files, limits, source);
    } catch (error) {
      return error as CliError;
    }
    throw new Error("expected a failure");
  };

  it("checkLimits: an empty site names the folder and says what to deploy", () => {
    const error = refusal([]);
    expect([error.message, error.hint]).toEqual([
      "nothing to deploy: /r holds no file (after ignores)",
      "Deploy the folder that holds your built site, e.g. ./dist.",
    ]);
  });

  it("checkLimits: too many files, by the client's own limit or the server's, with the source's hint", () => {
    const four = [file("a"), file("b"), file("c"), file("d")];
    const own = refusal(four);
    expect([own.message, own.hint]).toEqual([
      "/r holds 4 files; a deploy may hold at most 3",
      "Leave out what the site does not need with a .deployignore file (gitignore syntax).",
    ]);
    const server = refusal(four, SERVER);
    expect([server.message, server.hint]).toEqual([
      "/r holds 4 files; the server accepts a deploy that may hold at most 3",
      "Leave out what the site does not need with a .deployignore file (gitignore syntax). (see /limits.)",
    ]);
    expect(() => checkLimits("/r", four.slice(0, 3), limits)).not.toThrow();
  });

  it("checkLimits: one file too large is named in one line; several are listed under a count", () => {
    const one = refusal([file("a", 100), file("big.bin", 101)], SERVER);
    expect([one.code, one.message, one.hint]).toEqual([
      "FILE_TOO_LARGE",
      "big.bin (101 B) is larger than the server's limit of 100 B per file",
      "Shrink or split them, host them elsewhere, or name them in .deployignore. (see /limits.)",
    ]);
    const two = refusal([file("x.bin", 200), file("y.bin", 2048)]);
    expect(two.message).toBe(
      "2 files are larger than the limit of 100 B per file:\n  x.bin (200 B)\n  y.bin (2.0 KiB)",
    );
    expect(two.hint).toBe("Shrink or split them, host them elsewhere, or name them in .deployignore.");
  });

  it("checkLimits: past twenty files, the first twenty listed and the rest counted", () => {
    const big = Array.from({ length: 23 }, (_, i) => file(`f${String(i).padStart(2, "0")}`, 101));
    const lines = failureWith(big).message.split("\n");
    expect(lines).toHaveLength(1 + 20 + 1);
    expect(lines[20]).toBe("  f19 (101 B)");
    expect(lines[21]).toBe("  … and 3 more");
    expect(failureWith(big.slice(0, 20)).message.split("\n")).toHaveLength(21);
  });

  it("checkLimits: names with a backslash or a control character are listed quoted, C0 as JSON escapes them", () => {
    const error = refusal([file("a\\b"), file("tab\there"), file("bell\u0007")]);
    expect([error.message, error.hint]).toEqual([
      "file names with a backslash or a control character cannot be served:\n" +
        String.raw`  "a\\b"` +
        "\n" +
        String.raw`  "tab\there"` +
        "\n" +
        String.raw`  "bell\u0007"`,
      "Rename them or name them in .deployignore.",
    ]);
  });

  it("checkLimits: a path too long is named by its first 80 characters, with its own hint", () => {
    const error = refusal([file(`${"a".repeat(1023)}b`)]);
    expect(error.message).toBe(
      `a file's path is longer than 1024 bytes, the most a deploy accepts: "${"a".repeat(80)}"…`,
    );
    expect(error.hint).toBe("Rename it or name it in .deployignore.");
    expect(() => checkLimits("/r", [file("a".repeat(1023))], limits)).not.toThrow();
  });
});

/** The refusal of `files` under limits that allow any count. */
function failureWith(files: SiteFile[]): CliError {
  try {
    checkLimits("/r", files, { maxFiles: 100, maxFileBytes: 100 });
  } catch (error) {
    return error as CliError;
  }
  throw new Error("expected a failure");
}
