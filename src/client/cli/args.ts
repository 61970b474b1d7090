import { UsageError } from "../errors.js";
import { lookup, scan, wantsFlag } from "./flags.js";
import {
  ALL_FLAGS,
  type CommandName,
  commandSpec,
  COMMON_FLAGS,
  type CommonOptions,
  type ParsedCommand,
  SUBCOMMANDS,
} from "./commands-list.js";
import { closest } from "./suggest.js";
import { checkApiUrl } from "../settings.js";

export type { CommandName, CommonOptions } from "./commands-list.js";

/** The command line, parsed: what to run and with which options. */
export type ParsedArgs =
  { kind: "help"; topic: CommandName | undefined } | { kind: "version" } | ParsedCommand;

/** Parses the arguments after `deploy` (no I/O); throws UsageError on a mistake. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const command = findCommand(argv);
  const rest = command.index === undefined ? [...argv] : argv.filter((_, i) => i !== command.index);
  const topic = command.name === "help" || command.index === undefined ? undefined : command.name;
  if (wantsFlag(rest, "help", "h")) return { kind: "help", topic };
  if (command.name === "help") return parseHelp(rest);
  if (wantsFlag(rest, "version", "v")) return { kind: "version" };

  const name = command.name;
  const spec = commandSpec(name);
  const { flags, positionals } = scan(rest, [...COMMON_FLAGS, ...spec.flags], name);
  const apiUrl = flags.get("api-url");
  const dirFlag = flags.get("dir");
  const common: CommonOptions = {
    apiUrl: typeof apiUrl === "string" ? checkApiUrl(apiUrl, "--api-url") : undefined,
    json: flags.has("json"),
    dir: typeof dirFlag === "string" ? nonEmpty(dirFlag, "--dir") : ".",
  };
  // The declaration's parse returns its own command's arguments (its kind is the word typed).
  return spec.parse({ name, flags, positionals, common }) as ParsedCommand;
}

/**
 * A UsageError for a word that was taken as deploy's folder, did not name one, and is close to
 * a command's name ("stauts"); undefined when it is not like any command.
 */
export function mistypedCommand(word: string): UsageError | undefined {
  if (word.includes("/") || word.includes(".")) return undefined;
  const guess = closest(word, SUBCOMMANDS);
  if (guess === undefined) return undefined;
  return new UsageError(
    `unknown command "${word}" (and no folder of that name)`,
    `Did you mean \`deploy ${guess}\`?`,
  );
}

function findCommand(argv: readonly string[]): { name: CommandName | "help"; index?: number } {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") break;
    if (token.startsWith("-") && token !== "-") {
      const spec = lookup(ALL_FLAGS, token);
      if (spec?.takesValue && !token.includes("=")) i++;
      continue;
    }
    if (SUBCOMMANDS.includes(token)) return { name: token as CommandName | "help", index: i };
    break;
  }
  return { name: "deploy" };
}

function parseHelp(rest: string[]): ParsedArgs {
  const topic = rest.find((token) => !token.startsWith("-"));
  if (topic === undefined) return { kind: "help", topic: undefined };
  if (topic === "deploy" || (SUBCOMMANDS.includes(topic) && topic !== "help")) {
    return { kind: "help", topic: topic as CommandName };
  }
  const guess = closest(topic, SUBCOMMANDS);
  throw new UsageError(
    `unknown command "${topic}"`,
    guess === undefined
      ? `Commands: deploy, ${SUBCOMMANDS.filter((c) => c !== "help").join(", ")}.`
      : `Did you mean \`deploy help ${guess}\`?`,
  );
}

function nonEmpty(value: string, flag: string): string {
  if (value === "") throw new UsageError(`option ${flag} needs a value`);
  return value;
}
