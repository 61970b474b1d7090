/**
 * The entry point of the standalone client (packages/client): one bundled file that is the
 * `deploy` command and, started as a worker with HASH_WORKER_ROLE, a hashing thread too.
 */
import { isMainThread, workerData } from "node:worker_threads";
import { HASH_WORKER_ROLE, useWorkerScript } from "./scan/worker-script.js";

if (!isMainThread && (workerData as { role?: unknown } | null)?.role === HASH_WORKER_ROLE) {
  await import("./scan/hash-worker.js");
} else {
  useWorkerScript(new URL(import.meta.url));
  await import("./cli.js");
}
