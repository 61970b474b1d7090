import { describe, expect, it } from "vitest";
import { parseArgs } from "../args.js";
import { common, deploy, usage } from "../test-parse.js";

/** Words that are refused: the words (split at spaces), then the error's message and hint. */
type Refused = [argv: string, message: string, hint: string | undefined];

const ONE_WORD_TOO_MANY: Refused[] = [
  ["a b", 'unexpected argument "b": deploy takes one folder', "Run `deploy --help`."],
  [
    "status x",
    'unexpected argument "x": status takes no argument; name the folder with --dir',
    "Run `deploy status --help`.",
  ],
  [
    "list x",
    'unexpected argument "x": list takes no argument; name the folder with --dir',
    "Run `deploy list --help`.",
  ],
  [
    "credential x",
    'unexpected argument "x": credential takes no argument; name the folder with --dir',
    "Run `deploy credential --help`.",
  ],
  [
    "delete x",
    'unexpected argument "x": delete takes no argument; name the folder with --dir',
    "Run `deploy delete --help`.",
  ],
  [
    "open x",
    'unexpected argument "x": open takes no argument; name the folder with --dir',
    "Run `deploy open --help`.",
  ],
  ["whoami x", 'unexpected argument "x": whoami takes no argument', "Run `deploy whoami --help`."],
  ["projects x", 'unexpected argument "x": projects takes no argument', "Run `deploy projects --help`."],
  ["unlink x", 'unexpected argument "x": unlink takes no argument', "Run `deploy unlink --help`."],
  [
    "link a b",
    'unexpected argument "b": link takes one project name; name the folder with --dir',
    "Run `deploy link --help`.",
  ],
  [
    "promote abcde12345 b",
    'unexpected argument "b": promote takes one revision id',
    "Run `deploy promote --help`.",
  ],
  [
    "rollback abcde12345 b",
    'unexpected argument "b": rollback takes one revision id',
    "Run `deploy rollback --help`.",
  ],
  ["domain a.com b", 'unexpected argument "b": domain takes one hostname', "Run `deploy domain --help`."],
  [
    "completion bash b",
    'unexpected argument "b": completion takes one shell',
    "Run `deploy completion --help`.",
  ],
];

const MISSING_OR_CLASHING: Refused[] = [
  ["link", "missing project name", "Usage: deploy link <project>; `deploy projects` lists them."],
  ["promote", "missing revision id", "Usage: deploy promote <revision>; `deploy list` shows them."],
  [
    "domain",
    "missing hostname",
    "Usage: deploy domain <hostname> | deploy domain --check | deploy domain --reset",
  ],
  ["completion", "missing shell", "Usage: deploy completion bash|zsh|fish"],
  ["completion tcsh", 'unknown shell "tcsh"', "Usage: deploy completion bash|zsh|fish"],
  ["domain a.com --check", "give a hostname, --reset or --check, one of them", "Run `deploy domain --help`."],
  ["a --dir b", 'give the folder once: "a" and --dir "b"', undefined],
  [
    "--prod --preview",
    "give --prod or --preview, not both",
    "Production is the default: `deploy` deploys to production, `deploy --preview` does not.",
  ],
  [
    "--alias x --prod",
    "give --prod or --alias, not both",
    "An alias is a preview: `deploy --alias NAME` leaves production where it is.",
  ],
];

/** Checks the message and hint of the UsageError the parse of `argv` (split at spaces) throws. */
function expectRefused(argv: string, message: string, hint: string | undefined): void {
  const error = usage(argv.split(" "));
  expect([error.message, error.hint]).toEqual([message, hint]);
}

describe("parseArgs, each command's words", () => {
  it.each(ONE_WORD_TOO_MANY)(
    "parseArgs: `%s`, one word too many, names what the command takes, and its help",
    expectRefused,
  );

  it.each(MISSING_OR_CLASHING)(
    "parseArgs: `%s`, a missing or clashing word, says what to give",
    expectRefused,
  );

  it("parseArgs: deploy's --message and --alias are checked, rollback's revision id too", () => {
    const message = usage(["-m", "  "]);
    expect([message.message, message.hint]).toEqual([
      "--message: a message is not empty",
      "Run `deploy --help`.",
    ]);
    const alias = usage(["--alias", "Big--Name"]);
    expect(alias.message).toMatch(/^--alias "Big--Name": an alias is 1 to 20/);
    expect(alias.hint).toBe("Run `deploy --help`.");
    expect(usage(["rollback", "NOT-AN-ID"]).message).toBe(
      '"NOT-AN-ID" is not a revision id (10 of a-z and 0-9)',
    );
  });

  it("parseArgs: deploy's result has a message and an alias only when given", () => {
    expect(parseArgs(["dist"])).toStrictEqual({
      ...deploy,
      positional: "dist",
      common: { ...common, dir: "dist" },
    });
  });

  it("parseArgs: what each command returns, with its own options", () => {
    expect(parseArgs(["link", "calm-river-abc12"])).toEqual({
      kind: "link",
      projectSlug: "calm-river-abc12",
      common,
    });
    expect(parseArgs(["open"])).toEqual({ kind: "open", preview: false, common });
    expect(parseArgs(["logout"])).toEqual({ kind: "logout", common });
    expect(parseArgs(["projects", "--json"])).toEqual({
      kind: "projects",
      common: { ...common, json: true },
    });
    expect(parseArgs(["unlink"])).toEqual({ kind: "unlink", common });
    expect(parseArgs(["completion", "zsh"])).toEqual({ kind: "completion", shell: "zsh", common });
    expect(parseArgs(["dist"])).toEqual({
      ...deploy,
      positional: "dist",
      common: { ...common, dir: "dist" },
    });
    expect(parseArgs(["-m", "hi", "--alias", "stage"])).toEqual({
      ...deploy,
      positional: undefined,
      message: "hi",
      alias: "stage",
      common,
    });
  });
});
