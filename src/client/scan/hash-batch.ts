import { CliError } from "../errors.js";
import { base64Length } from "./file-stream.js";
import type { FileHasher, HashJob } from "./hash-file.js";

/** A batch of files for a hashing thread. */
export interface HashBatch {
  jobs: HashJob[];
}

/**
 * A hashing thread's answer to a batch: `[id, hash]` of each file done, then the error that stopped
 * it, if any, and the base64 texts of the files done that were to be kept: `[id, start, end]` in
 * one buffer (sent as a transfer, not copied).
 */
export interface HashReply {
  done: Array<[number, string]>;
  error?: { code: string; message: string; hint: string | undefined };
  kept?: { text: ArrayBuffer; parts: Array<[number, number, number]> };
}

/** Hashes a batch in order with one hasher; stops at the first failure. */
export async function hashBatch(hasher: FileHasher, batch: HashBatch): Promise<HashReply> {
  const done: Array<[number, string]> = [];
  // One buffer for the batch's kept texts, each made there by the hasher (no copy).
  const keptBytes = batch.jobs.reduce(
    (sum, job) => sum + (job.keep === true ? base64Length(job.size) : 0),
    0,
  );
  const text = keptBytes > 0 ? new ArrayBuffer(keptBytes) : undefined;
  const parts: Array<[number, number, number]> = [];
  let at = 0;
  const reply = (error?: HashReply["error"]): HashReply => ({
    done,
    ...(error === undefined ? {} : { error }),
    ...(text === undefined || parts.length === 0 ? {} : { kept: { text, parts } }),
  });
  for (const job of batch.jobs) {
    try {
      if (text !== undefined && job.keep === true) {
        const end = at + base64Length(job.size);
        done.push([job.id, await hasher.hash(job, Buffer.from(text, at, end - at))]);
        parts.push([job.id, at, end]);
        at = end;
      } else {
        done.push([job.id, await hasher.hash(job)]);
      }
    } catch (error) {
      const cli = error instanceof CliError ? error : undefined;
      const message = (error as Error).message;
      return reply({ code: cli?.code ?? "HASH_FAILED", message, hint: cli?.hint });
    }
  }
  return reply();
}

/** Where a batch's answers go: each file's hash, and the base64 texts kept. */
export interface ReplyListener {
  done: (id: number, hash: string) => void;
  kept?: ((id: number, text: Buffer) => void) | undefined;
}

/**
 * Tells `to` a batch's hashes and kept texts (views of the reply's buffer); returns the error that
 * stopped the batch, if any, as the CliError to throw.
 */
export function heard(reply: HashReply, to: ReplyListener): CliError | undefined {
  for (const [id, hash] of reply.done) to.done(id, hash);
  if (reply.kept !== undefined && to.kept !== undefined) {
    for (const [id, start, end] of reply.kept.parts)
      to.kept(id, Buffer.from(reply.kept.text, start, end - start));
  }
  const error = reply.error;
  return error === undefined ? undefined : new CliError(error.code, error.message, error.hint);
}
