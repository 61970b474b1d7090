// Fixtures of the parse tests (args.test.ts, command-specs/parse.test.ts); test-*.ts files are not built.
import { parseArgs } from "./args.js";
import { UsageError } from "../errors.js";

/** The options every command has, as a parse gives them when none is written. */
export const common = { apiUrl: undefined, json: false, dir: "." };

/** A deploy's own options as a parse gives them when none is written (positional and common aside). */
export const deploy = { kind: "deploy", preview: false, includeDotfiles: false, yes: false };

/** The UsageError a parse throws, for its message and hint. */
export function usage(argv: string[]): UsageError {
  try {
    parseArgs(argv);
  } catch (caught) {
    if (caught instanceof UsageError) return caught;
    throw caught;
  }
  throw new Error(`no usage error for ${argv.join(" ")}`);
}
