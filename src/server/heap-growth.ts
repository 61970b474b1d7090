import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets the heap grow past what the last full collection kept alive, in percent. Its
 * default on a machine with gigabytes is up to 4× (300%): after a 50,000-file deploy left ~36 MB
 * alive, the next full collection waited until the heap held ~130 MB, almost all of it the garbage
 * of manifests and rows, and the server's resident memory peaked near 300 MB. At 1.5× it stays
 * near 200 MB, for a few more full collections of a small heap (BENCHMARKS.md, fourth pass).
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * The node flags every way of starting the server passes (bin/deploy-server.js's first line,
 * `npm start`, the Dockerfile): V8 reads the young generation's size when the process starts, so
 * unlike the heap growth it cannot be set from here. Its default (16 MiB semi-spaces, 48 MiB of
 * young generation) is room the upload's garbage fills; at 4 MiB a 50,000-file 1%-changed redeploy
 * peaked at 206-215 MB instead of 234-240, and a 10,000-file first deploy took as much of the
 * server's CPU (BENCHMARKS.md, issue 32's last pass).
 */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=4"] as const;

/**
 * Sets V8's heap growth for this process, unless the operator chose one (in the node command or
 * NODE_OPTIONS). V8 reads the setting at each full collection, so setting it at start is enough.
 * Returns whether it was set.
 */
export function limitHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? "",
): boolean {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) =>
    /^--heap[-_]growing[-_]percent(=|$)/.test(arg),
  );
  if (given) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
