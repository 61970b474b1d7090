import { existsSync } from "node:fs";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { CheckpointWorkerData } from "./wal-checkpoint-worker.js";
import type { SqliteDatabase } from "./sqlite.js";

/** How often the worker checkpoints: the log then holds a fraction of a second of writes. */
const INTERVAL_MS = 250;
/** SQLite's own default, which the connection goes back to if the worker fails. */
const AUTO_CHECKPOINT_PAGES = 1000;

/**
 * Moves `db`'s checkpoints to a worker thread with its own connection to `file`: by default the
 * connection that commits past 1,000 pages of log copies them into the file and waits for the
 * disk, in the thread the API, uploads and the edge share (100 ms and more during a large prepare,
 * issue 31). If the worker fails, the connection checkpoints itself again. Returns what stops the
 * worker (before `db` is closed, which then checkpoints what is left, as the last connection).
 */
export function checkpointInWorker(db: SqliteDatabase, file: string): () => Promise<void> {
  const worker = new Worker(workerFile(), {
    workerData: { file, intervalMs: INTERVAL_MS } satisfies CheckpointWorkerData,
  });
  // It keeps no process alive.
  worker.unref();
  db.pragma("wal_autocheckpoint = 0");
  let running = true;
  const exited = once(worker, "exit").catch(() => undefined);
  const fallBack = () => {
    if (!running) return;
    running = false;
    if (db.open) db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
  };
  worker.on("error", fallBack);
  worker.on("exit", fallBack);
  return async () => {
    if (!running) return;
    running = false;
    worker.postMessage("close");
    await exited;
  };
}

/**
 * The worker's compiled file. Run from the sources (the tests, through vitest), this module is
 * TypeScript, which a worker cannot load: it takes the built copy in dist/ (the tests build it first).
 */
function workerFile(): URL {
  const sibling = new URL("./wal-checkpoint-worker.js", import.meta.url);
  if (existsSync(fileURLToPath(sibling))) return sibling;
  return new URL("../../dist/shared/wal-checkpoint-worker.js", import.meta.url);
}
