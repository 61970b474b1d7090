import { describe, expect, it } from "vitest";
import { mistypedCommand, parseArgs } from "./args.js";
import { UsageError } from "../errors.js";
import { common, deploy, usage } from "./test-parse.js";

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
