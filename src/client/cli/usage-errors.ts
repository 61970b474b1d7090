import { UsageError } from "../errors.js";

/** Where to read more about a command. */
export function helpHint(command: string): string {
  return command === "deploy" ? "Run `deploy --help`." : `Run \`deploy ${command} --help\`.`;
}

/** Throws a UsageError when more than `max` words were given; `message` says what the command takes. */
export function tooMany(positionals: string[], max: number, command: string, message: string): void {
  const extra = positionals[max];
  if (extra !== undefined) {
    throw new UsageError(`unexpected argument "${extra}": ${message}`, helpHint(command));
  }
}

const REVISION_ID = /^[a-z0-9]{10}$/;

/** Throws a UsageError unless `value` has a revision id's form. */
export function checkRevisionId(value: string, command: string): void {
  if (!REVISION_ID.test(value)) {
    throw new UsageError(
      `"${value}" is not a revision id (10 of a-z and 0-9)`,
      `\`deploy list\` shows the project's revisions. ${helpHint(command)}`,
    );
  }
}
