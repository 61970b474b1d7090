import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { workerScript } from "../worker-script.js";
import type { CheckpointWorkerData } from "./wal-checkpoint-worker.js";

/** How often the worker checkpoints: the log then holds a fraction of a second of writes. */
const INTERVAL_MS = 100;

/**
 * Checkpoints the log of the SQLite database `file` from a worker thread with its own connection,
 * a PASSIVE checkpoint every INTERVAL_MS: the service's connection, which checkpoints when a
 * commit takes the log past 1,000 pages, then finds most pages copied already, where it copied all
 * of them and waited for the disk in the thread the API, uploads and the edge share (100 ms and
 * more in a large prepare, issue 31). Its own checkpoint stays on: with the worker's alone, writes
 * that never pause kept the log from starting over, and it grew by what they wrote. Returns what
 * stops the worker (before the service's connection is closed, which then checkpoints the rest).
 */
export function checkpointInWorker(file: string): () => Promise<void> {
  let script: URL;
  try {
    script = workerScript("wal-checkpoint-worker.js", import.meta.url);
  } catch {
    // No compiled worker (sources run unbuilt): the connection checkpoints alone, as by default.
    return async () => undefined;
  }
  const worker = new Worker(script, {
    workerData: { file, intervalMs: INTERVAL_MS } satisfies CheckpointWorkerData,
  });
  // It keeps no process alive; if it fails, the connection checkpoints alone, as by default.
  worker.unref();
  worker.on("error", () => undefined);
  let running = true;
  const exited = once(worker, "exit").catch(() => undefined);
  return async () => {
    if (!running) return;
    running = false;
    worker.postMessage("close");
    await exited;
  };
}
