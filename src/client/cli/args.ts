import { UsageError } from "../errors.js";
import { helpHint, lookup, scan, wantsFlag } from "./flags.js";
import {
  ALL_FLAGS,
  COMMAND_FLAGS,
  COMMON_FLAGS,
  type CommandName,
  type CommonOptions,
  SUBCOMMANDS,
} from "./commands-list.js";
import { closest } from "./suggest.js";
import { checkApiUrl } from "../settings.js";
import { deployExtras, parseHabit, type HabitArgs } from "./habit-args.js";

export type { CommandName, CommonOptions } from "./commands-list.js";

/** The command line, parsed: what to run and with which options. */
export type ParsedArgs =
  | { kind: "help"; topic: CommandName | undefined }
  | { kind: "version" }
  | {
      kind: "deploy";
      common: CommonOptions;
      preview: boolean;
      includeDotfiles: boolean;
      /** --yes: deploy a folder that looks like a project's source without asking. */
      yes: boolean;
      /** The folder as typed as a word, when it was: a mistyped command looks like one. */
      positional: string | undefined;
      /** `--prod` was given: production is the default anyway, and the run says so. */
      prod?: true;
      /** `--message`: stored with the revision, shown by list and status. */
      message?: string;
      /** `--alias`: a preview also served at `<alias>--<slug>.<domain>`. */
      alias?: string;
    }
  | { kind: "status" | "list" | "credential"; common: CommonOptions }
  | { kind: "rollback"; revisionId: string | undefined; common: CommonOptions }
  | { kind: "promote"; revisionId: string; common: CommonOptions }
  | { kind: "domain"; hostname: string | undefined; reset: boolean; check: boolean; common: CommonOptions }
  | { kind: "delete"; yes: boolean; common: CommonOptions }
  | { kind: "link"; projectSlug: string; common: CommonOptions }
  | { kind: "unlink" | "projects"; common: CommonOptions }
  | HabitArgs;

const REVISION_ID = /^[a-z0-9]{10}$/;

/** Parses the arguments after `deploy` (no I/O); throws UsageError on a mistake. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const command = findCommand(argv);
  const rest = command.index === undefined ? [...argv] : argv.filter((_, i) => i !== command.index);
  const topic = command.name === "help" || command.index === undefined ? undefined : command.name;
  if (wantsFlag(rest, "help", "h")) return { kind: "help", topic };
  if (command.name === "help") return parseHelp(rest);
  if (wantsFlag(rest, "version", "v")) return { kind: "version" };

  const name = command.name;
  const { flags, positionals } = scan(rest, [...COMMON_FLAGS, ...COMMAND_FLAGS[name]], name);
  const apiUrl = flags.get("api-url");
  const dirFlag = flags.get("dir");
  const dirOption = typeof dirFlag === "string" ? nonEmpty(dirFlag, "--dir") : undefined;
  const common: CommonOptions = {
    apiUrl: typeof apiUrl === "string" ? checkApiUrl(apiUrl, "--api-url") : undefined,
    json: flags.has("json"),
    dir: dirOption ?? ".",
  };

  switch (name) {
    case "deploy": {
      tooMany(positionals, 1, "deploy", "deploy takes one folder");
      const positional = positionals[0];
      if (positional !== undefined && dirOption !== undefined) {
        throw new UsageError(`give the folder once: "${positional}" and --dir "${dirOption}"`);
      }
      return {
        kind: "deploy",
        common: { ...common, dir: positional ?? common.dir },
        preview: flags.has("preview"),
        includeDotfiles: flags.has("include-dotfiles"),
        yes: flags.has("yes"),
        positional,
        ...deployExtras(flags),
      };
    }
    case "status":
    case "list":
    case "credential":
      tooMany(positionals, 0, name, `${name} takes no argument; name the folder with --dir`);
      return { kind: name, common };
    case "rollback": {
      tooMany(positionals, 1, name, "rollback takes one revision id");
      const revisionId = positionals[0];
      if (revisionId !== undefined) checkRevisionId(revisionId, name);
      return { kind: "rollback", revisionId, common };
    }
    case "promote": {
      tooMany(positionals, 1, name, "promote takes one revision id");
      const revisionId = positionals[0];
      if (revisionId === undefined) {
        throw new UsageError(
          "missing revision id",
          "Usage: deploy promote <revision>; `deploy list` shows them.",
        );
      }
      checkRevisionId(revisionId, name);
      return { kind: "promote", revisionId, common };
    }
    case "domain": {
      tooMany(positionals, 1, "domain", "domain takes one hostname");
      const hostname = positionals[0];
      const reset = flags.has("reset");
      const check = flags.has("check");
      if ([reset, check, hostname !== undefined].filter(Boolean).length > 1) {
        throw new UsageError(
          `give a hostname, --reset or --check, one of them`,
          "Run `deploy domain --help`.",
        );
      }
      if (!reset && !check && hostname === undefined) {
        throw new UsageError(
          "missing hostname",
          "Usage: deploy domain <hostname> | deploy domain --check | deploy domain --reset",
        );
      }
      return { kind: "domain", hostname, reset, check, common };
    }
    case "delete":
      tooMany(positionals, 0, "delete", "delete takes no argument; name the folder with --dir");
      return { kind: "delete", yes: flags.has("yes"), common };
    case "link": {
      tooMany(positionals, 1, "link", "link takes one project name; name the folder with --dir");
      const projectSlug = positionals[0];
      if (projectSlug === undefined) {
        throw new UsageError(
          "missing project name",
          "Usage: deploy link <project>; `deploy projects` lists them.",
        );
      }
      return { kind: "link", projectSlug, common };
    }
    case "unlink":
    case "projects":
      tooMany(positionals, 0, name, `${name} takes no argument`);
      return { kind: name, common };
    default:
      return parseHabit(name, flags, positionals, common);
  }
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

function checkRevisionId(value: string, command: string): void {
  if (!REVISION_ID.test(value)) {
    throw new UsageError(
      `"${value}" is not a revision id (10 of a-z and 0-9)`,
      `\`deploy list\` shows the project's revisions. ${helpHint(command)}`,
    );
  }
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
