import { UsageError } from "../errors.js";
import { helpHint, lookup, scan, wantsFlag, type FlagSpec } from "./flags.js";
import { checkApiUrl } from "../settings.js";

/** The subcommands; `deploy [dir]` is the default one. */
export type CommandName = "deploy" | "domain" | "delete";

/** Options every command accepts. */
interface CommonOptions {
  /** From `--api-url`; the environment and the default are applied later. */
  apiUrl: string | undefined;
  json: boolean;
}

/** The command line, parsed: what to run and with which options. */
type ParsedArgs =
  | { kind: "help"; topic: CommandName | undefined }
  | { kind: "version" }
  | { kind: "deploy"; dir: string; common: CommonOptions }
  | { kind: "domain"; hostname: string | undefined; reset: boolean; dir: string; common: CommonOptions }
  | { kind: "delete"; dir: string; yes: boolean; common: CommonOptions };

const COMMON_FLAGS: FlagSpec[] = [
  { name: "api-url", takesValue: true },
  { name: "json", takesValue: false },
  { name: "help", alias: "h", takesValue: false },
  { name: "version", alias: "v", takesValue: false },
];

const COMMAND_FLAGS: Record<CommandName, FlagSpec[]> = {
  deploy: [{ name: "dir", takesValue: true }],
  domain: [
    { name: "dir", takesValue: true },
    { name: "reset", takesValue: false },
  ],
  delete: [
    { name: "dir", takesValue: true },
    { name: "yes", alias: "y", takesValue: false },
  ],
};

const SUBCOMMANDS = new Set(["domain", "delete", "help"]);
const ALL_FLAGS = [...COMMON_FLAGS, ...Object.values(COMMAND_FLAGS).flat()];

/** Parses the arguments after `deploy` (no I/O); throws UsageError on a mistake. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const command = findCommand(argv);
  const rest = command.index === undefined ? [...argv] : argv.filter((_, i) => i !== command.index);
  const topic = command.name === "help" || command.index === undefined ? undefined : command.name;
  if (wantsFlag(rest, "help", "h")) return { kind: "help", topic };
  if (command.name === "help") return parseHelp(rest);
  if (wantsFlag(rest, "version", "v")) return { kind: "version" };

  const specs = [...COMMON_FLAGS, ...COMMAND_FLAGS[command.name]];
  const { flags, positionals } = scan(rest, specs, command.name);
  const apiUrl = flags.get("api-url");
  const common: CommonOptions = {
    apiUrl: typeof apiUrl === "string" ? checkApiUrl(apiUrl, "--api-url") : undefined,
    json: flags.has("json"),
  };
  const dirFlag = flags.get("dir");
  const dirOption = typeof dirFlag === "string" ? nonEmpty(dirFlag, "--dir") : undefined;

  switch (command.name) {
    case "deploy": {
      tooMany(positionals, 1, "deploy", "deploy takes one folder");
      const positional = positionals[0];
      if (positional !== undefined && dirOption !== undefined) {
        throw new UsageError(`give the folder once: "${positional}" and --dir "${dirOption}"`);
      }
      return { kind: "deploy", dir: positional ?? dirOption ?? ".", common };
    }
    case "domain": {
      tooMany(positionals, 1, "domain", "domain takes one hostname");
      const hostname = positionals[0];
      const reset = flags.has("reset");
      if (reset && hostname !== undefined) {
        throw new UsageError(`give a hostname or --reset, not both`, "Run `deploy domain --help`.");
      }
      if (!reset && hostname === undefined) {
        throw new UsageError("missing hostname", "Usage: deploy domain <hostname> | deploy domain --reset");
      }
      return { kind: "domain", hostname, reset, dir: dirOption ?? ".", common };
    }
    case "delete":
      tooMany(positionals, 0, "delete", "delete takes no argument; name the folder with --dir");
      return { kind: "delete", dir: dirOption ?? ".", yes: flags.has("yes"), common };
  }
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
    if (SUBCOMMANDS.has(token)) return { name: token as CommandName | "help", index: i };
    break;
  }
  return { name: "deploy" };
}

function parseHelp(rest: string[]): ParsedArgs {
  const topic = rest.find((token) => !token.startsWith("-"));
  if (topic === undefined) return { kind: "help", topic: undefined };
  if (topic === "deploy" || topic === "domain" || topic === "delete") return { kind: "help", topic };
  throw new UsageError(`unknown command "${topic}"`, "Commands: deploy, domain, delete.");
}

function tooMany(positionals: string[], max: number, command: string, message: string): void {
  const extra = positionals[max];
  if (extra !== undefined)
    throw new UsageError(`unexpected argument "${extra}": ${message}`, helpHint(command));
}

function nonEmpty(value: string, flag: string): string {
  if (value === "") throw new UsageError(`option ${flag} needs a value`);
  return value;
}
