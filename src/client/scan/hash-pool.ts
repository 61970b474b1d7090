import { setImmediate as nextTurn } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import type { FileHasher } from "./hash-file.js";
import { hashBatch, heard, type HashBatch, type HashReply } from "./hash-batch.js";
import { HASH_WORKER_ROLE } from "./worker-script.js";

/** How to hash batches on worker threads. */
interface PoolOptions {
  threads: number;
  workerUrl: URL;
  /** Called with each file's id and hash, in no particular order. */
  done: (id: number, hash: string) => void;
  /** Called with the base64 text of each file done that its job asked to keep. */
  kept?: (id: number, text: Buffer) => void;
  /** When given, the main thread hashes batches with it until the first thread answers (they take ~0.1 s to start). */
  helper?: FileHasher;
}

/**
 * Hashes the batches on `threads` worker threads: one batch in flight per thread until it first
 * answers, two after. The first failure stops handing out batches and is thrown.
 */
export async function hashBatches(batches: readonly HashBatch[], options: PoolOptions): Promise<void> {
  let next = 0;
  let started = false;
  const take = () => (next < batches.length ? batches[next++] : undefined);
  const stop = () => {
    next = batches.length;
  };
  const workers = Array.from(
    { length: options.threads },
    // The role lets one bundled file (the standalone client) know it was started as a hashing thread.
    () => new Worker(options.workerUrl, { workerData: { role: HASH_WORKER_ROLE } }),
  );
  const onThreads = workers.map(
    (worker) =>
      new Promise<void>((resolve, reject) => {
        let inFlight = 0;
        let answered = false;
        const feed = () => {
          for (let batch; inFlight < (answered ? 2 : 1) && (batch = take()) !== undefined; inFlight++) {
            worker.postMessage(batch);
          }
          if (inFlight === 0) resolve();
        };
        worker.on("message", (reply: HashReply) => {
          inFlight--;
          answered = started = true;
          const failure = heard(reply, options);
          if (failure !== undefined) {
            stop();
            reject(failure);
            return;
          }
          feed();
        });
        worker.on("error", reject);
        worker.on("exit", (code) => reject(new Error(`a hashing thread stopped (exit code ${code})`)));
        feed();
      }),
  );
  const onMain = async (hasher: FileHasher) => {
    for (let batch; !started && (batch = take()) !== undefined;) {
      const reply = await hashBatch(hasher, batch);
      const failure = heard(reply, options);
      if (failure !== undefined) {
        stop();
        throw failure;
      }
      await nextTurn(); // lets the threads' answers in
    }
  };
  try {
    await Promise.all([...onThreads, ...(options.helper === undefined ? [] : [onMain(options.helper)])]);
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
