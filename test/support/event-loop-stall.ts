import { monitorEventLoopDelay } from "node:perf_hooks";

/**
 * Watches this process's event loop (an in-process server's too) while `work` runs, asking
 * `url` again and again meanwhile, one request at a time: resolves with what `work` gave, the
 * longest delay of the loop (ms, from perf_hooks) and the longest wait for an answer (ms).
 */
export async function whileWatching<T>(
  url: string,
  work: () => Promise<T>,
): Promise<{ result: T; longestStallMs: number; longestWaitMs: number; answers: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  let stopped = false;
  let longestWaitMs = 0;
  let answers = 0;
  const polling = (async () => {
    while (!stopped) {
      const started = performance.now();
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
      longestWaitMs = Math.max(longestWaitMs, performance.now() - started);
      answers++;
    }
  })();
  try {
    const result = await work();
    return { result, longestStallMs: histogram.max / 1e6, longestWaitMs, answers };
  } finally {
    stopped = true;
    histogram.disable();
    await polling;
  }
}
