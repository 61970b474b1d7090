import { accountsSpec } from "./command-specs/accounts.js";
import { completionSpec } from "./command-specs/completion.js";
import { credentialSpec } from "./command-specs/credential.js";
import { deleteSpec } from "./command-specs/delete.js";
import { deploySpec } from "./command-specs/deploy.js";
import { domainSpec } from "./command-specs/domain.js";
import { linkSpec } from "./command-specs/link.js";
import { listSpec } from "./command-specs/list.js";
import { openSpec } from "./command-specs/open.js";
import { projectsSpec } from "./command-specs/projects.js";
import { promoteSpec } from "./command-specs/promote.js";
import { rollbackSpec } from "./command-specs/rollback.js";
import { statusSpec } from "./command-specs/status.js";
import { unlinkSpec } from "./command-specs/unlink.js";
import { COMMON_FLAGS, type CommandSpec, type FlagSpec } from "./command.js";

export { COMMON_FLAGS, type CommonOptions, type FlagSpec } from "./command.js";

/**
 * Every command, in the order `deploy --help` lists them: parsing, dispatch, help, "did you mean"
 * and shell completion are derived from this list (a new command is one declaration and one line).
 */
export const COMMANDS = [
  deploySpec,
  statusSpec,
  listSpec,
  rollbackSpec,
  promoteSpec,
  credentialSpec,
  domainSpec,
  deleteSpec,
  openSpec,
  completionSpec,
  accountsSpec,
  linkSpec,
  unlinkSpec,
  projectsSpec,
] as const;

type Declared = (typeof COMMANDS)[number];

/** A command, as typed; `deploy [dir]` is the default one. */
export type CommandName = Declared["name"] | NonNullable<Declared["aliases"]>[number];

/** A command line parsed by its command's declaration. */
export type ParsedCommand = ReturnType<Declared["parse"]>;

/** What `deploy help <topic>` knows. */
export type HelpTopic = CommandName;

/** Each word that runs a command, with its declaration. */
const BY_NAME = new Map<string, CommandSpec>(
  COMMANDS.flatMap((spec) => [spec.name, ...(spec.aliases ?? [])].map((name) => [name, spec as CommandSpec])),
);

/** The declaration of the command typed as `name`. */
export function commandSpec(name: CommandName): CommandSpec {
  return BY_NAME.get(name)!;
}

/** Options of one command only, by the words that run it. */
export const COMMAND_FLAGS = Object.fromEntries(
  [...BY_NAME].map(([name, spec]) => [name, spec.flags]),
) as Record<CommandName, readonly FlagSpec[]>;

/** Commands typed as a word after `deploy` (everything but the default one, and help). */
export const SUBCOMMANDS: readonly string[] = [
  ...[...BY_NAME.keys()].filter((name) => name !== "deploy"),
  "help",
];

/** Every option of every command, to find a value-taking option's value while looking for the command. */
export const ALL_FLAGS: FlagSpec[] = [...COMMON_FLAGS, ...Object.values(COMMAND_FLAGS).flat()];

/** The commands whose option `name` is, for "did you mean" across commands. */
export function commandsWithFlag(name: string): CommandName[] {
  return (Object.keys(COMMAND_FLAGS) as CommandName[]).filter((command) =>
    COMMAND_FLAGS[command].some((spec) => spec.name === name),
  );
}

/** How a command is typed: `deploy` for the default one, `deploy <name>` for the others. */
export function commandLabel(name: CommandName): string {
  return name === "deploy" ? "deploy [dir]" : `deploy ${name}`;
}
