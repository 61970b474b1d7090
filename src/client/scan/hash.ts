import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { FileHasher, type HashJob } from "./hash-file.js";
import { hashBatches } from "./hash-pool.js";
import { hashBatch, heard, type HashBatch } from "./hash-batch.js";
import type { HashCache } from "./hash-cache.js";
import type { KeptTexts } from "./kept-text.js";
import type { SiteFile } from "./walk-state.js";
import { workerScript } from "./worker-script.js";

/** How to hash a site. */
interface HashOptions {
  cache: HashCache;
  /** Worker threads to use; 0 hashes on the main thread. */
  threads: number;
  /** Called after each file, with its size and whether it came from the cache. */
  onFile?: (file: SiteFile, cached: boolean) => void;
  /** Fewest files to hash that start threads (default THREAD_MIN_FILES; 64 MiB also does). */
  threadMinFiles?: number;
  /** The worker script; defaults to `workerScript()` (hash-worker.js beside this module, or the bundle). */
  workerUrl?: URL;
  /** Where to keep the base64 text of the files read (within its budget) for the upload. */
  keep?: KeptTexts;
}

/**
 * Below this much work to do, threads cost more than they save: starting one takes ~60 ms of CPU
 * (on 2 shared cores, 1,000 small files hashed in ~90 ms on the main thread alone, ~250 ms while
 * two threads started).
 */
export const THREAD_MIN_FILES = 2000;
const THREAD_MIN_BYTES = 64 * 1024 * 1024;
/** Files per message to a hashing thread, and the bytes a batch stops at (fewer messages, yet balanced). */
export const BATCH_FILES = 64;
export const BATCH_BYTES = 4 * 1024 * 1024;

/** The asset hash of every file, in order, from the cache or by reading the file. */
export async function hashSite(files: readonly SiteFile[], options: HashOptions): Promise<string[]> {
  const hashes: string[] = new Array<string>(files.length);
  const pending: number[] = [];
  files.forEach((file, index) => {
    const cached = options.cache.lookup(file);
    if (cached === undefined) {
      pending.push(index);
    } else {
      hashes[index] = cached;
      options.onFile?.(file, true);
    }
  });
  const done = (index: number, hash: string) => {
    const file = files[index]!;
    hashes[index] = hash;
    options.cache.record(file, hash);
    options.onFile?.(file, false);
  };
  const bytes = pending.reduce((sum, index) => sum + files[index]!.size, 0);
  const workerUrl = options.workerUrl ?? workerScript();
  const big = pending.length >= (options.threadMinFiles ?? THREAD_MIN_FILES) || bytes >= THREAD_MIN_BYTES;
  if (pending.length === 0) return hashes;
  const hasher = await FileHasher.create();
  const keep = options.keep;
  const kept =
    keep === undefined ? undefined : (index: number, text: Buffer) => keep.keep(files[index]!, text);
  const batches = batchJobs(files, pending, keep?.choose(files, pending));
  if (options.threads > 0 && big && existsSync(fileURLToPath(workerUrl))) {
    const threads = Math.min(options.threads, batches.length);
    await hashBatches(batches, { threads, workerUrl, done, kept, helper: hasher });
  } else {
    for (const batch of batches) {
      const reply = await hashBatch(hasher, batch);
      const failure = heard(reply, { done, kept });
      if (failure !== undefined) throw failure;
    }
  }
  return hashes;
}

/**
 * Splits the pending files into batches of at most BATCH_FILES files and (unless one file)
 * BATCH_BYTES; the jobs of the files in `keep` ask to keep their text.
 */
export function batchJobs(
  files: readonly SiteFile[],
  pending: readonly number[],
  keep?: ReadonlySet<number>,
): HashBatch[] {
  const batches: HashBatch[] = [];
  let jobs: HashJob[] = [];
  let bytes = 0;
  for (const index of pending) {
    const file = files[index]!;
    if (jobs.length > 0 && (jobs.length >= BATCH_FILES || bytes + file.size > BATCH_BYTES)) {
      batches.push({ jobs });
      jobs = [];
      bytes = 0;
    }
    const job: HashJob = { id: index, absPath: file.absPath, path: file.path, size: file.size };
    if (keep?.has(index) === true) job.keep = true;
    jobs.push(job);
    bytes += file.size;
  }
  if (jobs.length > 0) batches.push({ jobs });
  return batches;
}
