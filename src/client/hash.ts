import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { forEachLimit } from "./concurrency.js";
import { CliError } from "./errors.js";
import { hashFile, type HashJob } from "./hash-file.js";
import type { HashReply } from "./hash-worker.js";
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
    await hashInWorkers(files, pending, Math.min(options.threads, pending.length), workerUrl, done);
  } else {
    await forEachLimit(pending, 4, async (index) => done(index, await hashFile(files[index]!)));
  }
  return hashes;
}

/** Hashes the pending files on a pool of worker threads, two jobs in flight per thread. */
async function hashInWorkers(
  files: readonly SiteFile[],
  pending: number[],
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
              while (inFlight < 2 && next < pending.length) {
                const index = pending[next++]!;
                const file = files[index]!;
                const job: HashJob = { id: index, absPath: file.absPath, path: file.path, size: file.size };
                worker.postMessage(job);
                inFlight++;
              }
              if (inFlight === 0) resolve();
            };
            worker.on("message", (reply: HashReply) => {
              inFlight--;
              if ("error" in reply) {
                next = pending.length;
                reject(new CliError(reply.error.code, reply.error.message, reply.error.hint));
                return;
              }
              done(reply.id, reply.hash);
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
