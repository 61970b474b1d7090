import { UsageError } from "./errors.js";

/** The subcommands; `deploy [dir]` is the default one. */
export type CommandName = "deploy" | "domain" | "delete";

/** Options every command accepts. */
export interface CommonOptions {
  /** From `--api-url`; the environment and the default are applied later. */
  apiUrl: string | undefined;
  json: boolean;
}

/** The command line, parsed: what to run and with which options. */
export type ParsedArgs =
  | { kind: "help"; topic: CommandName | undefined }
  | { kind: "version" }
  | { kind: "deploy"; dir: string; common: CommonOptions }
  | { kind: "domain"; hostname: string | undefined; reset: boolean; dir: string; common: CommonOptions }
  | { kind: "delete"; dir: string; yes: boolean; common: CommonOptions };

interface FlagSpec {
  name: string;
  alias?: string;
  takesValue: boolean;
}

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

interface Scan {
  flags: Map<string, string | true>;
  positionals: string[];
}

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

/** Checks an API base URL (from `--api-url` or DEPLOY_API_URL) and drops a trailing slash. */
export function checkApiUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${source} "${value}" is not a URL`, "Example: --api-url http://127.0.0.1:8787");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${source} "${value}" must start with http:// or https://`);
  }
  return value.replace(/\/+$/, "");
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

function wantsFlag(tokens: string[], name: string, alias: string): boolean {
  const end = tokens.indexOf("--");
  const head = end === -1 ? tokens : tokens.slice(0, end);
  return head.includes(`--${name}`) || head.includes(`-${alias}`);
}

function scan(tokens: string[], specs: FlagSpec[], command: string): Scan {
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === "--") {
      positionals.push(...tokens.slice(i + 1));
      break;
    }
    if (!token.startsWith("-") || token === "-") {
      positionals.push(token);
      continue;
    }
    const spec = lookup(specs, token);
    if (spec === undefined) {
      throw new UsageError(`unknown option ${token.split("=")[0]} for "${command}"`, helpHint(command));
    }
    const eq = token.indexOf("=");
    if (!spec.takesValue) {
      if (eq !== -1) throw new UsageError(`option --${spec.name} takes no value`, helpHint(command));
      flags.set(spec.name, true);
      continue;
    }
    const value = eq !== -1 ? token.slice(eq + 1) : tokens[++i];
    if (value === undefined) throw new UsageError(`option --${spec.name} needs a value`, helpHint(command));
    flags.set(spec.name, value);
  }
  return { flags, positionals };
}

function lookup(specs: FlagSpec[], token: string): FlagSpec | undefined {
  if (token.startsWith("--")) {
    const name = token.slice(2).split("=")[0];
    return specs.find((spec) => spec.name === name);
  }
  return specs.find((spec) => spec.alias !== undefined && token === `-${spec.alias}`);
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

function helpHint(command: string): string {
  return command === "deploy" ? "Run `deploy --help`." : `Run \`deploy ${command} --help\`.`;
}
