import { describe, expect, it } from "vitest";
import { mistypedCommand, parseArgs } from "./args.js";
import { UsageError } from "../errors.js";
import { closest, editDistance } from "./suggest.js";

const common = { apiUrl: undefined, json: false, dir: "." };
const deploy = { kind: "deploy", preview: false, includeDotfiles: false, yes: false };

/** The UsageError a parse throws, for its message and hint. */
function usage(argv: string[]): UsageError {
  try {
    parseArgs(argv);
  } catch (caught) {
    if (caught instanceof UsageError) return caught;
    throw caught;
  }
  throw new Error(`no usage error for ${argv.join(" ")}`);
}

describe("parseArgs", () => {
  it("parseArgs: no argument deploys the current folder", () => {
    expect(parseArgs([])).toEqual({ ...deploy, common, positional: undefined });
  });

  it("parseArgs: a folder, --json and --api-url in any order", () => {
    expect(parseArgs(["--json", "./dist", "--api-url", "http://h:1/"])).toEqual({
      ...deploy,
      positional: "./dist",
      common: { apiUrl: "http://h:1", json: true, dir: "./dist" },
    });
    expect(parseArgs(["--api-url=https://api.example.com", "site"])).toMatchObject({
      common: { apiUrl: "https://api.example.com", dir: "site" },
    });
  });

  it("parseArgs: --dir works for deploy, but not together with a folder", () => {
    expect(parseArgs(["--dir", "out"])).toMatchObject({ kind: "deploy", common: { dir: "out" } });
    expect(() => parseArgs(["a", "--dir", "b"])).toThrow(UsageError);
  });

  it("parseArgs: deploy --preview [dir] and --include-dotfiles", () => {
    expect(parseArgs(["--preview", "dist"])).toMatchObject({
      kind: "deploy",
      preview: true,
      includeDotfiles: false,
      common: { dir: "dist" },
    });
    expect(parseArgs(["dist", "--include-dotfiles"])).toMatchObject({
      preview: false,
      includeDotfiles: true,
    });
  });

  it("parseArgs: deploy --yes and -y confirm a folder that looks like a project's source", () => {
    expect(parseArgs(["--yes"])).toMatchObject({ kind: "deploy", yes: true, common: { dir: "." } });
    expect(parseArgs(["-y", "dist"])).toMatchObject({ kind: "deploy", yes: true, common: { dir: "dist" } });
  });

  it("parseArgs: status, list and credential take --dir and --json, no argument", () => {
    for (const kind of ["status", "list", "credential"]) {
      expect(parseArgs([kind, "--dir", "dist", "--json"])).toEqual({
        kind,
        common: { apiUrl: undefined, json: true, dir: "dist" },
      });
      expect(() => parseArgs([kind, "dist"])).toThrow(/--dir/);
    }
  });

  it("parseArgs: rollback with or without a revision id, promote with exactly one", () => {
    expect(parseArgs(["rollback"])).toEqual({ kind: "rollback", revisionId: undefined, common });
    expect(parseArgs(["rollback", "abcde12345", "--dir=d"])).toEqual({
      kind: "rollback",
      revisionId: "abcde12345",
      common: { ...common, dir: "d" },
    });
    expect(parseArgs(["promote", "abcde12345"])).toEqual({
      kind: "promote",
      revisionId: "abcde12345",
      common,
    });
    expect(() => parseArgs(["promote"])).toThrow(/missing revision id/);
    expect(() => parseArgs(["promote", "NOT-AN-ID"])).toThrow(/not a revision id/);
    expect(() => parseArgs(["rollback", "a", "b"])).toThrow(/unexpected argument/);
  });

  it("parseArgs: domain with a hostname, --check or --reset, and --dir", () => {
    expect(parseArgs(["domain", "www.example.com", "--dir", "dist"])).toEqual({
      kind: "domain",
      hostname: "www.example.com",
      reset: false,
      check: false,
      common: { ...common, dir: "dist" },
    });
    expect(parseArgs(["--json", "domain", "--reset"])).toEqual({
      kind: "domain",
      hostname: undefined,
      reset: true,
      check: false,
      common: { ...common, json: true },
    });
    expect(parseArgs(["domain", "--check"])).toMatchObject({ kind: "domain", check: true, reset: false });
  });

  it("parseArgs: domain needs exactly one of a hostname, --check and --reset", () => {
    expect(() => parseArgs(["domain"])).toThrow(/missing hostname/);
    expect(() => parseArgs(["domain", "a.com", "--reset"])).toThrow(/one of them/);
    expect(() => parseArgs(["domain", "a.com", "--check"])).toThrow(/one of them/);
    expect(() => parseArgs(["domain", "--check", "--reset"])).toThrow(/one of them/);
    expect(() => parseArgs(["domain", "a.com", "b.com"])).toThrow(/unexpected argument "b.com"/);
  });

  it("parseArgs: delete with --yes or -y and --dir", () => {
    expect(parseArgs(["delete", "-y", "--dir=site"])).toEqual({
      kind: "delete",
      yes: true,
      common: { ...common, dir: "site" },
    });
    expect(parseArgs(["delete"])).toMatchObject({ yes: false, common: { dir: "." } });
    expect(() => parseArgs(["delete", "site"])).toThrow(/--dir/);
  });

  it("parseArgs: --help anywhere asks for the help of the command", () => {
    expect(parseArgs(["--help"])).toEqual({ kind: "help", topic: undefined });
    expect(parseArgs(["domain", "-h"])).toEqual({ kind: "help", topic: "domain" });
    expect(parseArgs(["delete", "--bogus", "--help"])).toEqual({ kind: "help", topic: "delete" });
    expect(parseArgs(["help", "delete"])).toEqual({ kind: "help", topic: "delete" });
    expect(parseArgs(["help", "rollback"])).toEqual({ kind: "help", topic: "rollback" });
    expect(() => parseArgs(["help", "nope"])).toThrow(/unknown command/);
  });

  it("parseArgs: --version and -v", () => {
    expect(parseArgs(["--version"])).toEqual({ kind: "version" });
    expect(parseArgs(["-v"])).toEqual({ kind: "version" });
  });

  it("parseArgs: an unknown option is a usage error naming it", () => {
    const error = usage(["./dist", "--production"]);
    expect(error.message).toContain("--production");
    expect(error.exitCode).toBe(2);
    expect(() => parseArgs(["domain", "x.com", "--yes"])).toThrow(/unknown option --yes/);
  });

  it("parseArgs: a mistyped option gets a did-you-mean; another command's option says whose it is", () => {
    expect(usage(["--previw"]).hint).toMatch(/^Did you mean --preview\?/);
    expect(usage(["--jsn"]).hint).toMatch(/^Did you mean --json\?/);
    expect(usage(["status", "--include-dotfile"]).hint).toMatch(
      /Did you mean --include-dotfiles\? It is an option of "deploy \[dir\]"/,
    );
    expect(usage(["status", "--reset"]).hint).toBe('It is an option of "deploy domain".');
    expect(usage(["--zzzzzz"]).hint).toBe("Run `deploy --help`.");
  });

  it("parseArgs: help for a mistyped command suggests the command", () => {
    expect(usage(["help", "stauts"]).hint).toBe("Did you mean `deploy help status`?");
  });

  it("mistypedCommand: a word close to a command's name suggests it; paths and far words do not", () => {
    expect(mistypedCommand("stauts")?.hint).toBe("Did you mean `deploy status`?");
    expect(mistypedCommand("rolback")?.hint).toBe("Did you mean `deploy rollback`?");
    expect(mistypedCommand("lst")?.hint).toBe("Did you mean `deploy list`?");
    expect(mistypedCommand("./stauts")).toBeUndefined();
    expect(mistypedCommand("website")).toBeUndefined();
  });

  it("parseArgs: options that need a value, or take none", () => {
    expect(() => parseArgs(["--api-url"])).toThrow(/needs a value/);
    expect(() => parseArgs(["--json=1"])).toThrow(/takes no value/);
    expect(() => parseArgs(["--dir="])).toThrow(/needs a value/);
  });

  it("parseArgs: --api-url must be an http(s) URL", () => {
    expect(() => parseArgs(["--api-url", "localhost:8787"])).toThrow(/http:\/\//);
    expect(() => parseArgs(["--api-url", "not a url"])).toThrow(/not a URL/);
  });

  it("parseArgs: --prod, -m and --alias on deploy; open, completion, login and whoami as commands", () => {
    expect(parseArgs(["--prod", "dist", "-m", "hello there"])).toMatchObject({
      kind: "deploy",
      prod: true,
      message: "hello there",
      common: { dir: "dist" },
    });
    expect(parseArgs(["--alias", "staging", "dist"])).toMatchObject({ kind: "deploy", alias: "staging" });
    expect(usage(["--alias", "abcdefgh12"]).message).toContain("would look like a revision id");
    expect(usage(["--alias", "Big--Name"]).message).toContain("an alias is 1 to 20");
    expect(usage(["--alias", "x", "--prod"]).message).toBe("give --prod or --alias, not both");
    expect(parseArgs(["open", "--preview"])).toMatchObject({ kind: "open", preview: true });
    expect(parseArgs(["completion", "fish"])).toMatchObject({ kind: "completion", shell: "fish" });
    expect(parseArgs(["whoami"])).toMatchObject({ kind: "whoami" });
    expect(usage(["login", "me"]).message).toContain("login takes no argument");
  });

  it("parseArgs: after -- everything is a folder, even a subcommand's name", () => {
    expect(parseArgs(["--", "domain"])).toMatchObject({ kind: "deploy", common: { dir: "domain" } });
    expect(parseArgs(["./domain"])).toMatchObject({ kind: "deploy", common: { dir: "./domain" } });
  });
});

describe("parseArgs, the command word", () => {
  it("parseArgs: a value-taking option's value is never the command; one given with = is not skipped", () => {
    expect(parseArgs(["--dir", "status"])).toMatchObject({ kind: "deploy", common: { dir: "status" } });
    expect(parseArgs(["--api-url=http://h:1", "status"])).toEqual({
      kind: "status",
      common: { ...common, apiUrl: "http://h:1" },
    });
  });

  it("parseArgs: a lone - is a word, and ends the search for the command", () => {
    expect(usage(["-", "status"]).message).toBe('unexpected argument "status": deploy takes one folder');
  });

  it("parseArgs: help alone, help deploy, help --help, and options before help's topic", () => {
    expect(parseArgs(["help"])).toEqual({ kind: "help", topic: undefined });
    expect(parseArgs(["help", "--help"])).toEqual({ kind: "help", topic: undefined });
    expect(parseArgs(["help", "deploy"])).toEqual({ kind: "help", topic: "deploy" });
    expect(parseArgs(["help", "--json", "status"])).toEqual({ kind: "help", topic: "status" });
    expect(usage(["help", "help"]).message).toBe('unknown command "help"');
  });

  it("parseArgs: help for a word like no command lists the commands", () => {
    expect(usage(["help", "zzzzzz"]).hint).toBe(
      "Commands: deploy, status, list, rollback, promote, credential, domain, delete, open, completion, " +
        "login, logout, whoami, link, unlink, projects.",
    );
  });

  it("parseArgs: the option a bad value came from is named", () => {
    expect(usage(["--api-url", "localhost:8787"]).message).toBe(
      '--api-url "localhost:8787" must start with http:// or https://',
    );
    expect(usage(["--dir="]).message).toBe("option --dir needs a value");
  });

  it("mistypedCommand: the message names the word; a word with a dot or a slash is a path", () => {
    expect(mistypedCommand("stauts")?.message).toBe('unknown command "stauts" (and no folder of that name)');
    expect(mistypedCommand("list.")).toBeUndefined();
    expect(mistypedCommand("lis/")).toBeUndefined();
  });
});

describe("parseArgs, each command's words", () => {
  it("parseArgs: one word too many names what the command takes, and its help", () => {
    const cases: [string[], string, string][] = [
      [["a", "b"], 'unexpected argument "b": deploy takes one folder', "Run `deploy --help`."],
      [
        ["status", "x"],
        'unexpected argument "x": status takes no argument; name the folder with --dir',
        "Run `deploy status --help`.",
      ],
      [
        ["list", "x"],
        'unexpected argument "x": list takes no argument; name the folder with --dir',
        "Run `deploy list --help`.",
      ],
      [
        ["credential", "x"],
        'unexpected argument "x": credential takes no argument; name the folder with --dir',
        "Run `deploy credential --help`.",
      ],
      [
        ["delete", "x"],
        'unexpected argument "x": delete takes no argument; name the folder with --dir',
        "Run `deploy delete --help`.",
      ],
      [
        ["open", "x"],
        'unexpected argument "x": open takes no argument; name the folder with --dir',
        "Run `deploy open --help`.",
      ],
      [["whoami", "x"], 'unexpected argument "x": whoami takes no argument', "Run `deploy whoami --help`."],
      [
        ["projects", "x"],
        'unexpected argument "x": projects takes no argument',
        "Run `deploy projects --help`.",
      ],
      [["unlink", "x"], 'unexpected argument "x": unlink takes no argument', "Run `deploy unlink --help`."],
      [
        ["link", "a", "b"],
        'unexpected argument "b": link takes one project name; name the folder with --dir',
        "Run `deploy link --help`.",
      ],
      [
        ["promote", "abcde12345", "b"],
        'unexpected argument "b": promote takes one revision id',
        "Run `deploy promote --help`.",
      ],
      [
        ["rollback", "abcde12345", "b"],
        'unexpected argument "b": rollback takes one revision id',
        "Run `deploy rollback --help`.",
      ],
      [
        ["domain", "a.com", "b"],
        'unexpected argument "b": domain takes one hostname',
        "Run `deploy domain --help`.",
      ],
      [
        ["completion", "bash", "b"],
        'unexpected argument "b": completion takes one shell',
        "Run `deploy completion --help`.",
      ],
    ];
    for (const [argv, message, hint] of cases) {
      const error = usage(argv);
      expect([error.message, error.hint], argv.join(" ")).toEqual([message, hint]);
    }
  });

  it("parseArgs: a missing word says what to give", () => {
    const cases: [string[], string, string | undefined][] = [
      [["link"], "missing project name", "Usage: deploy link <project>; `deploy projects` lists them."],
      [["promote"], "missing revision id", "Usage: deploy promote <revision>; `deploy list` shows them."],
      [
        ["domain"],
        "missing hostname",
        "Usage: deploy domain <hostname> | deploy domain --check | deploy domain --reset",
      ],
      [["completion"], "missing shell", "Usage: deploy completion bash|zsh|fish"],
      [["completion", "tcsh"], 'unknown shell "tcsh"', "Usage: deploy completion bash|zsh|fish"],
      [
        ["domain", "a.com", "--check"],
        "give a hostname, --reset or --check, one of them",
        "Run `deploy domain --help`.",
      ],
      [["a", "--dir", "b"], 'give the folder once: "a" and --dir "b"', undefined],
      [
        ["--prod", "--preview"],
        "give --prod or --preview, not both",
        "Production is the default: `deploy` deploys to production, `deploy --preview` does not.",
      ],
      [
        ["--alias", "x", "--prod"],
        "give --prod or --alias, not both",
        "An alias is a preview: `deploy --alias NAME` leaves production where it is.",
      ],
    ];
    for (const [argv, message, hint] of cases) {
      const error = usage(argv);
      expect([error.message, error.hint], argv.join(" ")).toEqual([message, hint]);
    }
  });

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

describe("suggest", () => {
  it("editDistance: insertions, deletions, substitutions, and a swap counts once", () => {
    expect(editDistance("status", "status")).toBe(0);
    expect(editDistance("stauts", "status")).toBe(1);
    expect(editDistance("lst", "list")).toBe(1);
    expect(editDistance("abc", "xyz")).toBe(3);
  });

  it("closest: nothing for words far from every candidate", () => {
    expect(closest("deploy", ["status", "list"])).toBeUndefined();
    expect(closest("prev", ["preview", "reset"])).toBe("preview");
  });

  it("editDistance: from or to the empty word is the other word's length", () => {
    expect(editDistance("abc", "")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("editDistance: only a swap of the same two letters counts once", () => {
    expect(editDistance("ab", "ca")).toBe(2);
    expect(editDistance("ab", "bc")).toBe(2);
    expect(editDistance("ab", "ba")).toBe(1);
  });

  it("closest: the first of equally close candidates, and nothing among none", () => {
    expect(closest("lis", ["list", "lisp"])).toBe("list");
    expect(closest("x", [])).toBeUndefined();
  });

  it("closest: two mistakes allowed in a long word, one in a short one", () => {
    expect(closest("credntal", ["credential"])).toBe("credential");
    expect(closest("xyst", ["list"])).toBeUndefined();
  });

  it("closest: a prefix of three characters or more, not of two", () => {
    expect(closest("pre", ["reset", "preview"])).toBe("preview");
    expect(closest("pr", ["preview"])).toBeUndefined();
  });
});
