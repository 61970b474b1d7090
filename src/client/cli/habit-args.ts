import { deployMessageProblem, previewAliasProblem } from "../../core/formats.js";
import { UsageError } from "../errors.js";
import type { CommonOptions, HabitCommand } from "./commands-list.js";
import { helpHint } from "./flags.js";

/** The shells `deploy completion` writes a script for. */
export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** The parsed commands people bring from other tools (commands-list.ts's HabitCommand). */
export type HabitArgs =
  | { kind: "open"; preview: boolean; common: CommonOptions }
  | { kind: "completion"; shell: CompletionShell; common: CommonOptions }
  | { kind: "login"; common: CommonOptions }
  | { kind: "logout"; common: CommonOptions }
  | { kind: "whoami"; common: CommonOptions };

/** Parses a HabitCommand's options and arguments; throws UsageError on a mistake. */
export function parseHabit(
  name: HabitCommand,
  flags: Map<string, string | true>,
  positionals: string[],
  common: CommonOptions,
): HabitArgs {
  switch (name) {
    case "open":
      tooMany(positionals, 0, name, "open takes no argument; name the folder with --dir");
      return { kind: "open", preview: flags.has("preview"), common };
    case "completion": {
      tooMany(positionals, 1, name, "completion takes one shell");
      const shell = positionals[0];
      if (!COMPLETION_SHELLS.includes(shell as CompletionShell)) {
        throw new UsageError(
          shell === undefined ? "missing shell" : `unknown shell "${shell}"`,
          `Usage: deploy completion ${COMPLETION_SHELLS.join("|")}`,
        );
      }
      return { kind: "completion", shell: shell as CompletionShell, common };
    }
    case "login":
      tooMany(positionals, 0, name, "login takes no argument");
      return { kind: "login", common };
    case "logout":
      tooMany(positionals, 0, name, "logout takes no argument");
      return { kind: "logout", common };
    case "whoami":
      tooMany(positionals, 0, name, "whoami takes no argument");
      return { kind: "whoami", common };
  }
}

/** Deploy's options beyond the folder: --prod, --message and --alias, checked. */
export function deployExtras(flags: Map<string, string | true>): {
  prod?: true;
  message?: string;
  alias?: string;
} {
  const prod = flags.has("prod");
  const message = flags.get("message");
  const alias = flags.get("alias");
  if (prod && flags.has("preview")) {
    throw new UsageError(
      "give --prod or --preview, not both",
      "Production is the default: `deploy` deploys to production, `deploy --preview` does not.",
    );
  }
  if (typeof message === "string") {
    const problem = deployMessageProblem(message);
    if (problem !== undefined) throw new UsageError(`--message: ${problem}`, helpHint("deploy"));
  }
  if (typeof alias === "string") {
    const problem = previewAliasProblem(alias);
    if (problem !== undefined) throw new UsageError(`--alias "${alias}": ${problem}`, helpHint("deploy"));
    if (prod) {
      throw new UsageError(
        "give --prod or --alias, not both",
        "An alias is a preview: `deploy --alias NAME` leaves production where it is.",
      );
    }
  }
  return {
    ...(prod && { prod: true as const }),
    ...(typeof message === "string" && { message }),
    ...(typeof alias === "string" && { alias }),
  };
}

function tooMany(positionals: string[], max: number, command: string, message: string): void {
  const extra = positionals[max];
  if (extra !== undefined) {
    throw new UsageError(`unexpected argument "${extra}": ${message}`, helpHint(command));
  }
}
