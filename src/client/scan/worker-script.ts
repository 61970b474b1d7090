/** What a hashing thread is started with, so that one bundled file can tell it is one. */
export const HASH_WORKER_ROLE = "static-deploy-hash-worker";

let script = new URL("./hash-worker.js", import.meta.url);

/** Makes `url` the script hashing threads run (the bundle itself, in the standalone client). */
export function useWorkerScript(url: URL): void {
  script = url;
}

/** The script hashing threads run: hash-worker.js beside this module, unless told otherwise. */
export function workerScript(): URL {
  return script;
}
