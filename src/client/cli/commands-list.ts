/** One option: its long name, an optional one-letter alias, and whether it takes a value. */
export interface FlagSpec {
  name: string;
  alias?: string;
  takesValue: boolean;
}

/** The subcommands; `deploy [dir]` is the default one. */
export type CommandName =
  | "deploy"
  | "status"
  | "list"
  | "rollback"
  | "promote"
  | "credential"
  | "domain"
  | "delete"
  // Which project a folder deploys to (local/project-file.ts).
  | "link"
  | "unlink"
  | "projects";

/** What `deploy help <topic>` knows. */
export type HelpTopic = CommandName;

/** Options every command accepts. */
export const COMMON_FLAGS: FlagSpec[] = [
  { name: "api-url", takesValue: true },
  { name: "json", takesValue: false },
  { name: "dir", takesValue: true },
  { name: "help", alias: "h", takesValue: false },
  { name: "version", alias: "v", takesValue: false },
];

/** Options of one command only. */
export const COMMAND_FLAGS: Record<CommandName, FlagSpec[]> = {
  deploy: [
    { name: "preview", takesValue: false },
    { name: "include-dotfiles", takesValue: false },
    // Confirms deploying a folder that looks like a project's source (deploy/source-guard.ts).
    { name: "yes", alias: "y", takesValue: false },
  ],
  status: [],
  list: [],
  rollback: [],
  promote: [],
  credential: [],
  domain: [
    { name: "reset", takesValue: false },
    { name: "check", takesValue: false },
  ],
  delete: [{ name: "yes", alias: "y", takesValue: false }],
  link: [],
  unlink: [],
  projects: [],
};

/** Commands typed as a word after `deploy` (everything but the default one, and help). */
export const SUBCOMMANDS: readonly string[] = [
  "status",
  "list",
  "rollback",
  "promote",
  "credential",
  "domain",
  "delete",
  "link",
  "unlink",
  "projects",
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
