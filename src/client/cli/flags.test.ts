import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { COMMON_FLAGS } from "./commands-list.js";
import { lookup, scan, wantsFlag } from "./flags.js";
import { checkRevisionId, helpHint } from "./usage-errors.js";

/** The UsageError `run` throws. */
function usage(run: () => unknown): UsageError {
  try {
    run();
  } catch (caught) {
    if (caught instanceof UsageError) return caught;
    throw caught;
  }
  throw new Error("no usage error");
}

describe("flags", () => {
  it("wantsFlag: --name or -alias before --, not after it", () => {
    expect(wantsFlag(["a", "--help"], "help", "h")).toBe(true);
    expect(wantsFlag(["-h"], "help", "h")).toBe(true);
    expect(wantsFlag(["a", "--", "--help", "-h"], "help", "h")).toBe(false);
  });

  it("scan: words after -- are positionals, the -- itself is not", () => {
    expect(scan(["a", "--", "--json", "b"], COMMON_FLAGS, "deploy")).toEqual({
      flags: new Map(),
      positionals: ["a", "--json", "b"],
    });
  });

  it("scan: a lone - is a positional; a flag without a value is true", () => {
    expect(scan(["-", "--json"], COMMON_FLAGS, "deploy")).toEqual({
      flags: new Map([["json", true]]),
      positionals: ["-"],
    });
  });

  it("scan: an option known elsewhere that no command owns points to help", () => {
    expect(usage(() => scan(["--json"], [], "status")).hint).toBe("Run `deploy status --help`.");
  });

  it("scan: a mistyped option of the command gets a did-you-mean and the help hint", () => {
    expect(usage(() => scan(["--jsno"], COMMON_FLAGS, "status")).hint).toBe(
      "Did you mean --json? Run `deploy status --help`.",
    );
    // Only the leading dashes are taken off before comparing: "api-ur" is one letter from "api-url".
    expect(usage(() => scan(["--api-ur"], COMMON_FLAGS, "deploy")).hint).toBe(
      "Did you mean --api-url? Run `deploy --help`.",
    );
  });

  it("scan: a mistyped option of other commands names each of them", () => {
    expect(usage(() => scan(["--previw"], COMMON_FLAGS, "status")).hint).toBe(
      'Did you mean --preview? It is an option of "deploy [dir]" and "deploy open".',
    );
  });

  it("scan: an option of other commands, spelled right, names each of them", () => {
    expect(usage(() => scan(["--yes"], COMMON_FLAGS, "status")).hint).toBe(
      'It is an option of "deploy [dir]" and "deploy delete".',
    );
  });

  it("lookup: a one-letter alias finds its own option only", () => {
    expect(lookup(COMMON_FLAGS, "-h")?.name).toBe("help");
    expect(lookup(COMMON_FLAGS, "-q")).toBeUndefined();
    expect(lookup(COMMON_FLAGS, "--dir=x")?.name).toBe("dir");
  });
});

describe("usage-errors", () => {
  it("helpHint: the command's own help, or deploy's", () => {
    expect(helpHint("deploy")).toBe("Run `deploy --help`.");
    expect(helpHint("status")).toBe("Run `deploy status --help`.");
  });

  it("checkRevisionId: says what a revision id is and where to find one", () => {
    const error = usage(() => checkRevisionId("nope", "promote"));
    expect(error.message).toBe('"nope" is not a revision id (10 of a-z and 0-9)');
    expect(error.hint).toBe("`deploy list` shows the project's revisions. Run `deploy promote --help`.");
    expect(() => checkRevisionId("abcde12345", "promote")).not.toThrow();
  });
});
