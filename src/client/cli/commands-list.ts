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
  | "projects"
  | HabitCommand;

/**
 * Commands people bring from netlify-cli, vercel, wrangler and surge: `open` and `completion` do
 * what they do there; `login`, `logout` and `whoami` say that there are no accounts here.
 */
export type HabitCommand = "open" | "completion" | "login" | "logout" | "whoami";

/** What `deploy help <topic>` knows. */
export type HelpTopic = CommandName;

/** Options every command accepts, parsed. */
export interface CommonOptions {
  /** From `--api-url`; the environment and the default are applied later. */
  apiUrl: string | undefined;
  json: boolean;
  /** The site folder: `--dir`, or deploy's positional, else the current folder. */
  dir: string;
}

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
    // Production is the default here; --prod (netlify, vercel) is accepted and says so.
    { name: "prod", takesValue: false },
    { name: "message", alias: "m", takesValue: true },
    { name: "alias", takesValue: true },
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
  open: [{ name: "preview", takesValue: false }],
  completion: [],
  login: [],
  logout: [],
  whoami: [],
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
  "open",
  "completion",
  "login",
  "logout",
  "whoami",
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
