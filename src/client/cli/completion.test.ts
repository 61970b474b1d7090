import { describe, expect, it } from "vitest";
import type { CommandSpec, FlagSpec } from "./command.js";
import { completionScript } from "./completion.js";

/** A declaration with only what completion reads: its words and its options. */
function spec(name: string, flags: FlagSpec[], aliases?: string[]): CommandSpec {
  return {
    name,
    ...(aliases === undefined ? {} : { aliases }),
    flags,
    usage: [],
    help: "",
    parse: () => ({ kind: name }),
    run: async () => {},
  };
}

const DEPLOY = spec("deploy", [
  { name: "preview", takesValue: false },
  { name: "message", alias: "m", takesValue: true },
  { name: "alias", takesValue: true },
]);
const STATUS = spec("status", [], ["st"]);
const DOMAIN = spec("domain", [
  { name: "check", takesValue: false },
  { name: "message", alias: "m", takesValue: true },
]);
const LIST = [DEPLOY, STATUS, DOMAIN];
const COMMON = "--api-url --json --dir --help -h --version -v";

/** The script's lines, trimmed. */
function lines(shell: "bash" | "zsh" | "fish", specs: CommandSpec[] = LIST): string[] {
  return completionScript(shell, specs)
    .split("\n")
    .map((line) => line.trim());
}

describe("completionScript", () => {
  it("completionScript bash: commands, each one's options, the value options and the shells", () => {
    const bash = lines("bash");
    expect(bash[0]).toBe("# bash completion for deploy (`deploy completion bash`)");
    expect(bash).toContain('status|st|domain|help) cmd="${COMP_WORDS[i]}"; break ;;');
    expect(bash).toContain("--api-url|--message|-m|--alias) COMPREPLY=(); return ;;");
    expect(bash).toContain(`status) opts="${COMMON}" ;;`);
    expect(bash).toContain(`st) opts="${COMMON}" ;;`);
    expect(bash).toContain(`domain) opts="${COMMON} --check --message -m" ;;`);
    expect(bash).toContain('help) COMPREPLY=($(compgen -W "deploy status st domain" -- "$cur")); return ;;');
    expect(bash).toContain(`*) opts="${COMMON} --preview --message -m --alias" ;;`);
    expect(bash).toContain('COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))');
    expect(bash).toContain(
      'COMPREPLY=($(compgen -W "status st domain help" -- "$cur") $(compgen -d -- "$cur"))',
    );
  });

  it("completionScript zsh: the same words in zsh's syntax", () => {
    const zsh = lines("zsh");
    expect(zsh.slice(0, 2)).toEqual([
      "#compdef deploy",
      "# zsh completion for deploy (`deploy completion zsh`)",
    ]);
    expect(zsh).toContain("(status|st|domain|help) cmd=${words[i]}; break ;;");
    expect(zsh).toContain("(--api-url|--message|-m|--alias) return ;;");
    expect(zsh).toContain(`(st) opts=(${COMMON}) ;;`);
    expect(zsh).toContain(`(domain) opts=(${COMMON} --check --message -m) ;;`);
    expect(zsh).toContain("(help) compadd -- deploy status st domain; return ;;");
    expect(zsh).toContain(`(*) opts=(${COMMON} --preview --message -m --alias) ;;`);
    expect(zsh).toContain("compadd -- bash zsh fish");
    expect(zsh).toContain("compadd -- status st domain help");
  });

  it("completionScript fish: one line per word list and per option, scoped to its command", () => {
    const all = "status st domain help";
    expect(lines("fish")).toEqual([
      "# fish completion for deploy (`deploy completion fish`)",
      "complete -c deploy -f",
      `complete -c deploy -n "not __fish_seen_subcommand_from ${all}" -a "${all}"`,
      `complete -c deploy -n "not __fish_seen_subcommand_from ${all}" -a "(__fish_complete_directories)"`,
      'complete -c deploy -n "__fish_seen_subcommand_from help" -a "deploy status st domain"',
      'complete -c deploy -n "__fish_seen_subcommand_from completion" -a "bash zsh fish"',
      "complete -c deploy -l api-url -r",
      "complete -c deploy -l json",
      "complete -c deploy -l dir -r -a '(__fish_complete_directories)'",
      "complete -c deploy -l help -s h",
      "complete -c deploy -l version -s v",
      `complete -c deploy -n "not __fish_seen_subcommand_from ${all}" -l preview`,
      `complete -c deploy -n "not __fish_seen_subcommand_from ${all}" -l message -s m -r`,
      `complete -c deploy -n "not __fish_seen_subcommand_from ${all}" -l alias -r`,
      'complete -c deploy -n "__fish_seen_subcommand_from domain" -l check',
      'complete -c deploy -n "__fish_seen_subcommand_from domain" -l message -s m -r',
      "",
    ]);
  });

  it("completionScript: a list without the default command completes only the common options at the top", () => {
    expect(lines("bash", [STATUS])).toContain(`*) opts="${COMMON}" ;;`);
    expect(lines("bash", [STATUS])).toContain("--api-url) COMPREPLY=(); return ;;");
    expect(
      lines("fish", [STATUS]).filter((line) => line.includes("not __fish_seen") && line.includes(" -l ")),
    ).toEqual([]);
  });
});
