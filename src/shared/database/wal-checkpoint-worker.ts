import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";

/**
 * The worker thread that moves a SQLite database's write-ahead log into its file
 * (`wal-checkpointer.ts`), on a connection of its own: a PASSIVE checkpoint waits for no one and
 * blocks no writer, and here it holds no thread the service answers on.
 */

/** What the worker is started with. */
export interface CheckpointWorkerData {
  file: string;
  intervalMs: number;
}

const { file, intervalMs } = workerData as CheckpointWorkerData;
const db = new Database(file, { fileMustExist: true });
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Busy or briefly unreadable: the next turn tries again.
  }
}, intervalMs);

parentPort?.on("message", (message: unknown) => {
  if (message !== "close") return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
