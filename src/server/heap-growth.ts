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
