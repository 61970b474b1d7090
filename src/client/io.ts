import type { Readable } from "node:stream";

/** A stream the CLI writes to; `isTTY` and `columns` as on process.stdout. */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Everything the CLI touches of its process, so tests can run it in-process. */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin?: Readable & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** The real process as a CliIo. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}
