import { UsageError } from "../errors.js";
import { ALL_FLAGS, commandLabel, commandsWithFlag, type FlagSpec } from "./commands-list.js";
import { closest } from "./suggest.js";
import { helpHint } from "./usage-errors.js";

export type { FlagSpec } from "./commands-list.js";

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
export function scan(tokens: string[], specs: readonly FlagSpec[], command: string): Scan {
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
    if (spec === undefined) throw unknownOption(token.split("=")[0]!, specs, command);
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

/** The error for an option `command` does not take, with what was most likely meant. */
function unknownOption(option: string, specs: readonly FlagSpec[], command: string): UsageError {
  const name = option.replace(/^-+/, "");
  const elsewhere = lookup(ALL_FLAGS, option);
  if (elsewhere !== undefined) {
    const owners = commandsWithFlag(elsewhere.name).map((owner) => `"${commandLabel(owner)}"`);
    const hint = owners.length > 0 ? `It is an option of ${owners.join(" and ")}.` : helpHint(command);
    return new UsageError(`unknown option ${option} for "${command}"`, hint);
  }
  const guess = closest(name, [...specs.map((spec) => spec.name), ...ALL_FLAGS.map((spec) => spec.name)]);
  const hint =
    guess === undefined
      ? helpHint(command)
      : specs.some((spec) => spec.name === guess)
        ? `Did you mean --${guess}? ${helpHint(command)}`
        : `Did you mean --${guess}? It is an option of ${commandsWithFlag(guess)
            .map((owner) => `"${commandLabel(owner)}"`)
            .join(" and ")}.`;
  return new UsageError(`unknown option ${option} for "${command}"`, hint);
}

/** The spec a token (`--name`, `--name=value`, `-a`) refers to, if any. */
export function lookup(specs: readonly FlagSpec[], token: string): FlagSpec | undefined {
  if (token.startsWith("--")) {
    const name = token.slice(2).split("=")[0];
    return specs.find((spec) => spec.name === name);
  }
  return specs.find((spec) => spec.alias !== undefined && token === `-${spec.alias}`);
}
