import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { confirm, type Question } from "./confirm.js";
import { UsageError } from "./errors.js";
import type { CliIo } from "./io.js";
import { refusal } from "./test-rejection.js";

const QUESTION: Question = {
  text: "Deploy it anyway? [y/N] ",
  notOnTerminal: { message: "looks like a source folder", hint: "pass --yes" },
  cancelled: "not deployed",
};

/** An io whose stdin carries `answer` (when given), with stdin and stderr terminals or not. */
function io(answer: string | undefined, tty: { stdin: boolean; stderr: boolean }) {
  let stderr = "";
  const stdin = Object.assign(new PassThrough(), { isTTY: tty.stdin });
  if (answer !== undefined) stdin.end(answer);
  const cli: CliIo = {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (stderr += text), isTTY: tty.stderr },
    stdin,
    env: {},
    cwd: "/",
  };
  return { cli, stderr: () => stderr };
}

const TERMINAL = { stdin: true, stderr: true };

describe("confirm", () => {
  it("confirm: asks on stderr and returns on y or yes, in any case and with spaces", async () => {
    for (const answer of ["y\n", "YES\n", "  Yes  \nno\n", "y"]) {
      const run = io(answer, TERMINAL);
      await confirm(run.cli, QUESTION);
      expect(run.stderr()).toBe("Deploy it anyway? [y/N] ");
    }
  });

  it("confirm: any other answer, or none, is CANCELLED with the question's words", async () => {
    for (const answer of ["n\n", "\n", "yep\n", "", "\nyes\n"]) {
      const error = await refusal(confirm(io(answer, TERMINAL).cli, QUESTION));
      expect(error.code).toBe("CANCELLED");
      expect(error.message).toBe("not deployed");
    }
  });

  it("confirm: off a terminal (stdin or stderr), the usage error that names the flag, without asking", async () => {
    for (const tty of [
      { stdin: false, stderr: true },
      { stdin: true, stderr: false },
    ]) {
      const run = io(undefined, tty);
      const error = await refusal(confirm(run.cli, QUESTION));
      expect(error).toBeInstanceOf(UsageError);
      expect([error.message, error.hint]).toEqual(["looks like a source folder", "pass --yes"]);
      expect(run.stderr()).toBe("");
    }
    const noStdin = { ...io(undefined, TERMINAL).cli, stdin: undefined };
    expect(await refusal(confirm(noStdin, QUESTION))).toBeInstanceOf(UsageError);
  });

  it("confirm: off a terminal with a code of its own, that code instead of USAGE", async () => {
    const question = {
      ...QUESTION,
      notOnTerminal: { ...QUESTION.notOnTerminal, code: "CONFIRMATION_NEEDED" },
    };
    const error = await refusal(confirm(io(undefined, { stdin: false, stderr: false }).cli, question));
    expect(error).not.toBeInstanceOf(UsageError);
    expect([error.code, error.message, error.hint]).toEqual([
      "CONFIRMATION_NEEDED",
      "looks like a source folder",
      "pass --yes",
    ]);
  });

  it("confirm: reads the answer as plain lines, never switching the terminal to raw mode", async () => {
    const run = io("yes\n", TERMINAL);
    const modes: boolean[] = [];
    const stdin = Object.assign(run.cli.stdin!, { setRawMode: (mode: boolean) => modes.push(mode) });
    await confirm({ ...run.cli, stdin }, QUESTION);
    expect(modes).toEqual([]);
  });
});
