import type { CommandContext } from "../context.js";
import type { CliIo } from "../io.js";

/** One option: its long name, an optional one-letter alias, and whether it takes a value. */
export interface FlagSpec {
  name: string;
  alias?: string;
  takesValue: boolean;
}

/** Options every command accepts, parsed. */
export interface CommonOptions {
  /** From `--api-url`; the environment and the default are applied later. */
  apiUrl: string | undefined;
  json: boolean;
  /** The site folder: `--dir`, or deploy's positional, else the current folder. */
  dir: string;
}

/** Options every command accepts. */
export const COMMON_FLAGS: readonly FlagSpec[] = [
  { name: "api-url", takesValue: true },
  { name: "json", takesValue: false },
  { name: "dir", takesValue: true },
  { name: "help", alias: "h", takesValue: false },
  { name: "version", alias: "v", takesValue: false },
];

/** What a command's `parse` is given: the word it was typed as, its options and its words. */
export interface CommandInput<N extends string> {
  name: N;
  flags: Map<string, string | true>;
  positionals: string[];
  common: CommonOptions;
}

/** One line of the main help's Usage section: how it is typed, then what it does (one or more lines). */
export type UsageLine = readonly [usage: string, ...description: string[]];

/**
 * One command of the CLI, declared once (as wrangler's `createCommand`): its name and aliases,
 * its options, its help, how its words are parsed and what it runs. Parsing, dispatch, help,
 * "did you mean" and shell completion are all derived from the list of these (`commands-list.ts`).
 */
export interface CommandSpec<N extends string = string, A extends { kind: N } = { kind: N }> {
  /** The word after `deploy` that runs it; `deploy` for the default command, typed as no word. */
  name: N;
  /** Other words for it; `parse` is told which one was typed. */
  aliases?: readonly N[];
  /** Its own options, beyond COMMON_FLAGS. */
  flags: readonly FlagSpec[];
  /** Its lines in `deploy --help`'s Usage section. */
  usage: readonly UsageLine[];
  /** `deploy help <name>` and `deploy <name> --help`. */
  help: string;
  /** Its arguments, checked (no I/O); throws UsageError on a mistake. */
  parse(input: CommandInput<N>): A;
  /**
   * Runs it; its code is loaded only when it runs (a faster start). `commands` is the whole list,
   * for a command that describes the others (completion), which may not import the list itself.
   */
  run(args: A, io: CliIo, commands: readonly CommandSpec[]): Promise<void>;
}

/** Declares a command; the identity, so that its parsed arguments are typed where it is written. */
export function defineCommand<const N extends string, A extends { kind: N }>(
  spec: CommandSpec<N, A>,
): CommandSpec<N, A> {
  return spec;
}

/** The context a command that talks to the API or reads the config folder works with. */
export async function commandContext(io: CliIo, common: CommonOptions): Promise<CommandContext> {
  const [{ readSettings }, { createContext }] = await Promise.all([
    import("../settings.js"),
    import("../context.js"),
  ]);
  return createContext(io, readSettings(io.env), common.apiUrl, common.json);
}
