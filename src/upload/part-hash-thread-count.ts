import { availableParallelism } from "node:os";
import { type Blake3Backend, defaultBlake3Backend } from "../core/blake3.js";

/**
 * The default of UPLOAD_HASH_THREADS: the cores beside the main thread, at most two, where BLAKE3
 * is WebAssembly; none where it is native. Native BLAKE3 hashes a megabyte in under a millisecond,
 * about what handing the bytes to a thread costs the main thread: there the threads saved the main
 * thread nothing measurable and cost the process a quarter more CPU; with WebAssembly they saved
 * the main thread 28-32% (BENCHMARKS.md, `npm run bench:upload-hash`).
 */
export function defaultHashThreads(backend: Blake3Backend = defaultBlake3Backend()): number {
  return backend === "native" ? 0 : Math.max(0, Math.min(2, availableParallelism() - 1));
}
