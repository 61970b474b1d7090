import { UsageError } from "../errors.js";

/** One option: its long name, an optional one-letter alias, and whether it takes a value. */
export interface FlagSpec {
  name: string;
  alias?: string;
  takesValue: boolean;
}

/** Options and positional arguments, as given. */
interface Scan {
  flags: Map<string, string | true>;
  positionals: string[];
}

/** True when `--name` or `-alias` appears before any `--`. */
export function wantsFlag(tokens: string[], name: string, alias: string): boolean {
  const end = tokens.indexOf("--");
  const head = end === -1 ? tokens : tokens.slice(0, end);
  return head.includes(`--${name}`) || head.includes(`-${alias}`);
}

/** Splits tokens into known options and positionals; an unknown option or a missing value is a UsageError. */
export function scan(tokens: string[], specs: FlagSpec[], command: string): Scan {
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

/** The spec a token (`--name`, `--name=value`, `-a`) refers to, if any. */
export function lookup(specs: FlagSpec[], token: string): FlagSpec | undefined {
  if (token.startsWith("--")) {
    const name = token.slice(2).split("=")[0];
    return specs.find((spec) => spec.name === name);
  }
  return specs.find((spec) => spec.alias !== undefined && token === `-${spec.alias}`);
}

/** Where to read more about a command. */
export function helpHint(command: string): string {
  return command === "deploy" ? "Run `deploy --help`." : `Run \`deploy ${command} --help\`.`;
}
