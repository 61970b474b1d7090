import { parentPort } from "node:worker_threads";
import { CliError } from "./errors.js";
import { hashFile, type HashJob } from "./hash-file.js";

/** A hashing thread's answer: the hash, or the error that stopped it. */
export type HashReply =
  | { id: number; hash: string }
  | { id: number; error: { code: string; message: string; hint: string | undefined } };

const port = parentPort;
if (port !== null) {
  port.on("message", (job: HashJob) => {
    hashFile(job).then(
      (hash) => port.postMessage({ id: job.id, hash } satisfies HashReply),
      (error: unknown) => {
        const cli = error instanceof CliError ? error : undefined;
        port.postMessage({
          id: job.id,
          error: { code: cli?.code ?? "HASH_FAILED", message: (error as Error).message, hint: cli?.hint },
        } satisfies HashReply);
      },
    );
  });
}
