import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { CliError } from "./errors.js";
import { FileHasher, type HashJob } from "./hash-file.js";
import type { HashBatch, HashReply } from "./hash-worker.js";
import type { HashCache } from "./hash-cache.js";
import type { SiteFile } from "./walk.js";

/** How to hash a site. */
export interface HashOptions {
  cache: HashCache;
  /** Worker threads to use; 0 hashes on the main thread. */
  threads: number;
  /** Called after each file, with its size and whether it came from the cache. */
  onFile?: (file: SiteFile, cached: boolean) => void;
  /** The compiled worker script; defaults to hash-worker.js beside this module. */
  workerUrl?: URL;
}

/** Below this much work to do, threads cost more than they save. */
const THREAD_MIN_FILES = 64;
const THREAD_MIN_BYTES = 8 * 1024 * 1024;
/** Files per message to a hashing thread, and the bytes a batch stops at (fewer messages, yet balanced). */
export const BATCH_FILES = 64;
export const BATCH_BYTES = 4 * 1024 * 1024;
const DEFAULT_WORKER_URL = new URL("./hash-worker.js", import.meta.url);

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
  const workerUrl = options.workerUrl ?? DEFAULT_WORKER_URL;
  const big = pending.length >= THREAD_MIN_FILES || bytes >= THREAD_MIN_BYTES;
  if (options.threads > 0 && big && existsSync(fileURLToPath(workerUrl))) {
    const batches = batchJobs(files, pending);
    await hashInWorkers(batches, Math.min(options.threads, batches.length), workerUrl, done);
  } else {
    const hasher = await FileHasher.create();
    for (const index of pending) done(index, await hasher.hash(files[index]!));
  }
  return hashes;
}

/** Hashes the pending files on a pool of worker threads, in batches, two batches in flight per thread. */
async function hashInWorkers(
  batches: readonly HashBatch[],
  threads: number,
  workerUrl: URL,
  done: (index: number, hash: string) => void,
): Promise<void> {
  const workers = Array.from({ length: threads }, () => new Worker(workerUrl));
  let next = 0;
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            let inFlight = 0;
            const feed = () => {
              while (inFlight < 2 && next < batches.length) {
                worker.postMessage(batches[next++]!);
                inFlight++;
              }
              if (inFlight === 0) resolve();
            };
            worker.on("message", (reply: HashReply) => {
              inFlight--;
              for (const [index, hash] of reply.done) done(index, hash);
              if (reply.error !== undefined) {
                next = batches.length;
                reject(new CliError(reply.error.code, reply.error.message, reply.error.hint));
                return;
              }
              feed();
            });
            worker.on("error", reject);
            worker.on("exit", (code) => reject(new Error(`a hashing thread stopped (exit code ${code})`)));
            feed();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

/** Splits the pending files into batches of at most BATCH_FILES files and (unless one file) BATCH_BYTES. */
export function batchJobs(files: readonly SiteFile[], pending: readonly number[]): HashBatch[] {
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
    jobs.push({ id: index, absPath: file.absPath, path: file.path, size: file.size });
    bytes += file.size;
  }
  if (jobs.length > 0) batches.push({ jobs });
  return batches;
}
