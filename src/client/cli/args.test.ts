import { describe, expect, it } from "vitest";
import { parseArgs } from "./args.js";
import { UsageError } from "../errors.js";

const common = { apiUrl: undefined, json: false };

describe("parseArgs", () => {
  it("parseArgs: no argument deploys the current folder", () => {
    expect(parseArgs([])).toEqual({ kind: "deploy", dir: ".", common });
  });

  it("parseArgs: a folder, --json and --api-url in any order", () => {
    expect(parseArgs(["--json", "./dist", "--api-url", "http://h:1/"])).toEqual({
      kind: "deploy",
      dir: "./dist",
      common: { apiUrl: "http://h:1", json: true },
    });
    expect(parseArgs(["--api-url=https://api.example.com", "site"])).toMatchObject({
      dir: "site",
      common: { apiUrl: "https://api.example.com" },
    });
  });

  it("parseArgs: --dir works for deploy, but not together with a folder", () => {
    expect(parseArgs(["--dir", "out"])).toMatchObject({ kind: "deploy", dir: "out" });
    expect(() => parseArgs(["a", "--dir", "b"])).toThrow(UsageError);
  });

  it("parseArgs: domain with a hostname, or --reset, and --dir", () => {
    expect(parseArgs(["domain", "www.example.com", "--dir", "dist"])).toEqual({
      kind: "domain",
      hostname: "www.example.com",
      reset: false,
      dir: "dist",
      common,
    });
    expect(parseArgs(["--json", "domain", "--reset"])).toEqual({
      kind: "domain",
      hostname: undefined,
      reset: true,
      dir: ".",
      common: { apiUrl: undefined, json: true },
    });
  });

  it("parseArgs: domain needs exactly one of a hostname and --reset", () => {
    expect(() => parseArgs(["domain"])).toThrow(/missing hostname/);
    expect(() => parseArgs(["domain", "a.com", "--reset"])).toThrow(/not both/);
    expect(() => parseArgs(["domain", "a.com", "b.com"])).toThrow(/unexpected argument "b.com"/);
  });

  it("parseArgs: delete with --yes or -y and --dir", () => {
    expect(parseArgs(["delete", "-y", "--dir=site"])).toEqual({
      kind: "delete",
      dir: "site",
      yes: true,
      common,
    });
    expect(parseArgs(["delete"])).toMatchObject({ yes: false, dir: "." });
    expect(() => parseArgs(["delete", "site"])).toThrow(/--dir/);
  });

  it("parseArgs: --help anywhere asks for the help of the command", () => {
    expect(parseArgs(["--help"])).toEqual({ kind: "help", topic: undefined });
    expect(parseArgs(["domain", "-h"])).toEqual({ kind: "help", topic: "domain" });
    expect(parseArgs(["delete", "--bogus", "--help"])).toEqual({ kind: "help", topic: "delete" });
    expect(parseArgs(["help", "delete"])).toEqual({ kind: "help", topic: "delete" });
    expect(() => parseArgs(["help", "nope"])).toThrow(/unknown command/);
  });

  it("parseArgs: --version and -v", () => {
    expect(parseArgs(["--version"])).toEqual({ kind: "version" });
    expect(parseArgs(["-v"])).toEqual({ kind: "version" });
  });

  it("parseArgs: an unknown option is a usage error naming it", () => {
    const error = (() => {
      try {
        parseArgs(["./dist", "--prod"]);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain("--prod");
    expect((error as UsageError).exitCode).toBe(2);
    expect(() => parseArgs(["domain", "x.com", "--yes"])).toThrow(/unknown option --yes/);
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

  it("parseArgs: after -- everything is a folder, even a subcommand's name", () => {
    expect(parseArgs(["--", "domain"])).toMatchObject({ kind: "deploy", dir: "domain" });
    expect(parseArgs(["./domain"])).toMatchObject({ kind: "deploy", dir: "./domain" });
  });
});
