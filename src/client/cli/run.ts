import { readFileSync } from "node:fs";
import { parseArgs } from "./args.js";
import { deleteCommand } from "./commands/delete.js";
import { deployCommand } from "./commands/deploy.js";
import { domainCommand } from "./commands/domain.js";
import { createContext } from "../context.js";
import { CliError, EXIT_FAILURE, EXIT_OK } from "../errors.js";
import { helpText } from "./help.js";
import type { CliIo } from "../io.js";
import { readSettings, resolveApiUrl } from "../settings.js";

/** Runs the CLI on `argv` (the arguments after `deploy`) and returns the exit status; never exits. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const parsed = parseArgs(argv);
    if (parsed.kind === "help") {
      io.stdout.write(helpText(parsed.topic));
      return EXIT_OK;
    }
    if (parsed.kind === "version") {
      io.stdout.write(`${clientVersion()}\n`);
      return EXIT_OK;
    }
    const settings = readSettings(io.env);
    const ctx = createContext(io, settings, resolveApiUrl(parsed.common.apiUrl, io.env), parsed.common.json);
    if (parsed.kind === "deploy") await deployCommand(ctx, parsed.dir);
    else if (parsed.kind === "domain") await domainCommand(ctx, parsed.dir, parsed.hostname);
    else await deleteCommand(ctx, parsed.dir, parsed.yes);
    return EXIT_OK;
  } catch (error) {
    return reportError(io, error);
  }
}

/** Prints an error for a person on stderr and returns its exit status (stack trace only with DEBUG=1). */
function reportError(io: CliIo, error: unknown): number {
  const debug = io.env.DEBUG === "1" || io.env.DEBUG === "true";
  if (error instanceof CliError) {
    io.stderr.write(`Error: ${error.message}\n`);
    if (error.hint !== undefined) io.stderr.write(`${error.hint}\n`);
    if (debug && error.stack !== undefined) io.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`Error: unexpected failure: ${message}\n`);
  io.stderr.write(
    debug && error instanceof Error ? `${error.stack}\n` : "Run again with DEBUG=1 for details.\n",
  );
  return EXIT_FAILURE;
}

/** The client's version, from package.json. */
function clientVersion(): string {
  const path = new URL("../../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
}
