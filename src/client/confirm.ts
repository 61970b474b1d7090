import { createInterface } from "node:readline";
import { CliError, UsageError } from "./errors.js";
import type { CliIo } from "./io.js";

/** What to say when a question cannot be asked, and when it is answered no. */
export interface Question {
  /** The question, ending in "[y/N] ". */
  text: string;
  /** The usage error's message and hint off a terminal, where nobody can answer. */
  notOnTerminal: { message: string; hint: string; code?: string };
  /** The CANCELLED error's message when the answer is not yes. */
  cancelled: string;
}

/**
 * Asks a yes/no question on the terminal (stderr, answered on stdin) and returns on yes; throws
 * CANCELLED on anything else, and off a terminal (stdin or stderr not a TTY) the error that names
 * the option that confirms instead, so a script never hangs on a question.
 */
export async function confirm(io: CliIo, question: Question): Promise<void> {
  const stdin = io.stdin;
  if (stdin?.isTTY !== true || io.stderr.isTTY !== true) {
    const { message, hint, code } = question.notOnTerminal;
    throw code === undefined ? new UsageError(message, hint) : new CliError(code, message, hint);
  }
  io.stderr.write(question.text);
  const lines = createInterface({ input: stdin, terminal: false });
  let answer = "";
  for await (const line of lines) {
    answer = line.trim().toLowerCase();
    break;
  }
  lines.close();
  if (answer !== "y" && answer !== "yes") throw new CliError("CANCELLED", question.cancelled);
}
