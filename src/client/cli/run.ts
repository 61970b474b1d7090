import { readFileSync } from "node:fs";
import { mistypedCommand, parseArgs, type ParsedArgs } from "./args.js";
import { ApiError, CliError, EXIT_FAILURE, EXIT_OK } from "../errors.js";
import type { CliIo } from "../io.js";
import { paintFor } from "../paint.js";

// Set by the bundler for the standalone package (packages/client), where no package.json sits
// at a known place beside the code.
declare const CLIENT_VERSION: string | undefined;

/** Runs the CLI on `argv` (the arguments after `deploy`) and returns the exit status; never exits. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ParsedArgs | undefined;
  try {
    parsed = parseArgs(argv);
    if (parsed.kind === "help") {
      const { helpText } = await import("./help.js");
      io.stdout.write(helpText(parsed.topic));
      return EXIT_OK;
    }
    if (parsed.kind === "version") {
      const version = clientVersion();
      io.stdout.write(wantsJson(argv, parsed) ? `${JSON.stringify({ version })}\n` : `${version}\n`);
      return EXIT_OK;
    }
    if (parsed.kind === "completion") {
      const { completionScript } = await import("./completion.js");
      io.stdout.write(completionScript(parsed.shell));
      return EXIT_OK;
    }
    if (parsed.kind === "login" || parsed.kind === "logout" || parsed.kind === "whoami") {
      const { accountsAnswer } = await import("./commands/accounts.js");
      io.stdout.write(accountsAnswer(parsed.kind, parsed.common.json));
      return EXIT_OK;
    }
    await runCommand(parsed, io);
    return EXIT_OK;
  } catch (error) {
    return reportError(io, explain(parsed, error), wantsJson(argv, parsed));
  }
}

/** Runs a parsed command; each command's code is loaded only when it runs (a faster start). */
async function runCommand(
  parsed: Exclude<ParsedArgs, { kind: "help" | "version" | "completion" | "login" | "logout" | "whoami" }>,
  io: CliIo,
): Promise<void> {
  const [{ readSettings }, { createContext }] = await Promise.all([
    import("../settings.js"),
    import("../context.js"),
  ]);
  const { common } = parsed;
  const ctx = createContext(io, readSettings(io.env), common.apiUrl, common.json);
  switch (parsed.kind) {
    case "deploy": {
      const { deployCommand } = await import("./commands/deploy.js");
      return deployCommand(ctx, common.dir, {
        preview: parsed.preview || parsed.alias !== undefined,
        includeDotfiles: parsed.includeDotfiles,
        prod: parsed.prod,
        message: parsed.message,
        alias: parsed.alias,
        yes: parsed.yes,
      });
    }
    case "status":
    case "list": {
      const { stateCommand } = await import("./commands/state.js");
      return stateCommand(ctx, common.dir, parsed.kind);
    }
    case "rollback":
    case "promote": {
      const { promoteCommand } = await import("./commands/promote.js");
      return promoteCommand(ctx, common.dir, parsed.revisionId, parsed.kind);
    }
    case "credential": {
      const { credentialCommand } = await import("./commands/credential.js");
      return credentialCommand(ctx, common.dir);
    }
    case "domain": {
      const { domainCommand } = await import("./commands/domain.js");
      return domainCommand(ctx, common.dir, parsed.check ? "check" : parsed.hostname);
    }
    case "delete": {
      const { deleteCommand } = await import("./commands/delete.js");
      return deleteCommand(ctx, common.dir, parsed.yes);
    }
    case "link":
    case "unlink": {
      const { linkCommand, unlinkCommand } = await import("./commands/link.js");
      return parsed.kind === "link"
        ? linkCommand(ctx, common.dir, parsed.projectSlug)
        : unlinkCommand(ctx, common.dir);
    }
    case "projects": {
      const { projectsCommand } = await import("./commands/projects.js");
      return projectsCommand(ctx);
    }
    case "open": {
      const { openCommand } = await import("./commands/open.js");
      return openCommand(ctx, common.dir, parsed.preview);
    }
  }
}

/** A deploy of a folder that does not exist, typed like a command ("stauts"), is a mistyped command. */
function explain(parsed: ParsedArgs | undefined, error: unknown): unknown {
  if (parsed?.kind === "deploy" && parsed.positional !== undefined && error instanceof CliError) {
    if (error.code === "NO_FOLDER") return mistypedCommand(parsed.positional) ?? error;
  }
  return error;
}

/** True when the run asked for --json (judged on the raw words too, when parsing itself failed). */
function wantsJson(argv: readonly string[], parsed: ParsedArgs | undefined): boolean {
  if (parsed !== undefined && "common" in parsed) return parsed.common.json;
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/**
 * Reports an error and returns its exit status: for a person on stderr (a stack trace only with
 * DEBUG=1); with --json also as `{ "error": { "code", "message" } }` on stdout, for scripts.
 */
function reportError(io: CliIo, error: unknown, json: boolean): number {
  const debug = io.env.DEBUG === "1" || io.env.DEBUG === "true";
  const label = paintFor(io.stderr, io.env).red("Error:");
  if (error instanceof CliError) {
    if (json) io.stdout.write(`${JSON.stringify({ error: { code: error.code, message: error.message } })}\n`);
    io.stderr.write(`${label} ${error.message}\n`);
    if (error.hint !== undefined) io.stderr.write(`${error.hint}\n`);
    if (debug && error instanceof ApiError) io.stderr.write(`${error.detail}\n`);
    if (debug && error.stack !== undefined) io.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ error: { code: "INTERNAL", message: `unexpected failure: ${message}` } })}\n`,
    );
  }
  io.stderr.write(`${label} unexpected failure: ${message}\n`);
  io.stderr.write(
    debug && error instanceof Error ? `${error.stack}\n` : "Run again with DEBUG=1 for details.\n",
  );
  return EXIT_FAILURE;
}

/** The client's version: the bundler's, else package.json's. */
function clientVersion(): string {
  if (typeof CLIENT_VERSION === "string") return CLIENT_VERSION;
  const path = new URL("../../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
}
