import type { Summary } from "../lib/stats.js";

/** A whole number with thousands separators. */
export function int(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** Milliseconds with as many decimals as their size deserves. */
export function ms(value: number): string {
  if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  if (value >= 100) return `${int(value)} ms`;
  return `${value.toFixed(value >= 10 ? 1 : 2)} ms`;
}

/** A size in kB or MB (powers of 10). */
export function size(bytes: number): string {
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(0)} kB`;
  return `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
}

/** Bytes in MB (10^6), as memory figures are read. */
export function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(0)} MB`;
}

/** Half the range between the lowest and the highest round, as a share of the median. */
export function plusMinus(summary: Summary): string {
  if (summary.samples.length < 2 || summary.median === 0) return "";
  return ` ±${(((summary.max - summary.min) / 2 / summary.median) * 100).toFixed(0)}%`;
}

/** A ratio as `0.81×`. */
export function times(value: number): string {
  return `${value.toFixed(value >= 10 ? 1 : 2)}×`;
}

/** A ratio with its range over the rounds: `0.81× (0.78–0.85)`. */
export function ratioWithRange(summary: Summary): string {
  if (summary.samples.length < 2) return times(summary.median);
  return `${times(summary.median)} (${summary.min.toFixed(2)}–${summary.max.toFixed(2)})`;
}

/** A Markdown table. */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}
