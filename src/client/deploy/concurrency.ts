/** Runs `task` over `items` with at most `limit` running at once; the first failure stops new work and is thrown. */
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const runner = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        await task(items[index]!, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const runners = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, runner);
  const results = await Promise.allSettled(runners);
  const rejected = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (rejected !== undefined) throw rejected.reason;
}
