/** Repeated measurements of one quantity: the median, the extremes and every sample in order. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

/** Summarizes samples (at least one) by their median and range. */
export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error("summarize: no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, samples: [...samples] };
}

/** The range as a share of the median, in percent: how much the rounds disagreed. */
export function spreadPercent(summary: Summary): number {
  return summary.median === 0 ? 0 : ((summary.max - summary.min) / summary.median) * 100;
}

/** Element-wise ratios of two equally long sample lists (round by round), summarized. */
export function ratioSummary(numerators: readonly number[], denominators: readonly number[]): Summary {
  return summarize(numerators.map((value, i) => value / denominators[i]!));
}

/** The contenders in the order of round `round`: rotated by one each round, so none always goes first. */
export function rotate<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** The sample at quantile `p` (0 to 1) of `samples`, or 0 when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}
