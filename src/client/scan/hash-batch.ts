import { CliError } from "../errors.js";
import type { FileHasher, HashJob } from "./hash-file.js";

/** A batch of files for a hashing thread. */
export interface HashBatch {
  jobs: HashJob[];
}

/** A hashing thread's answer to a batch: `[id, hash]` of each file done, then the error that stopped it, if any. */
export interface HashReply {
  done: Array<[number, string]>;
  error?: { code: string; message: string; hint: string | undefined };
}

/** Hashes a batch in order with one hasher; stops at the first failure. */
export async function hashBatch(hasher: FileHasher, batch: HashBatch): Promise<HashReply> {
  const done: Array<[number, string]> = [];
  for (const job of batch.jobs) {
    try {
      done.push([job.id, await hasher.hash(job)]);
    } catch (error) {
      const cli = error instanceof CliError ? error : undefined;
      const message = (error as Error).message;
      return { done, error: { code: cli?.code ?? "HASH_FAILED", message, hint: cli?.hint } };
    }
  }
  return { done };
}
