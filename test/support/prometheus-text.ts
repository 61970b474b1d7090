/** One series of Prometheus's text format: its name, labels and value. */
export interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Every series of a `/metrics` body (comment lines left out). */
export function parseSeries(text: string): Series[] {
  const series: Series[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    series.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return series;
}

/** Series of `name` whose labels include every one of `labels`. */
export function seriesOf(text: string, name: string, labels: Record<string, string> = {}): Series[] {
  return parseSeries(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
  );
}

/** The value of the first such series, or undefined when there is none. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return seriesOf(text, name, labels)[0]?.value;
}

/** The sum of every such series (0 when there is none). */
export function sumOf(text: string, name: string, labels: Record<string, string> = {}): number {
  return seriesOf(text, name, labels).reduce((total, s) => total + s.value, 0);
}
