import { readFileSync } from "node:fs";
import { mistypedCommand, parseArgs, type ParsedArgs } from "./args.js";
import { COMMANDS, commandSpec } from "./commands-list.js";
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
    // A declaration runs what its own parse returned (its kind is the word it was typed as).
    await commandSpec(parsed.kind).run(parsed as never, io, COMMANDS);
    return EXIT_OK;
  } catch (error) {
    return reportError(io, explain(parsed, error), wantsJson(argv, parsed));
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
