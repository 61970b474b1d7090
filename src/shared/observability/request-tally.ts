/**
 * The request counter and latency histogram, kept as plain numbers per series and written in
 * Prometheus's text format only when scraped. prom-client builds a label object, hashes and
 * validates it for every observation: about 5% of the edge's CPU on a remembered page (issue 32),
 * for figures read once a scrape. Here a request costs a string key, a map lookup and a bucket scan.
 */

interface CountSeries {
  labels: string;
  count: number;
}

interface LatencySeries {
  labels: string;
  /** Observations per bucket (not cumulative); the last one is above the largest bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/** Counts and latencies of answered requests; labels are bounded by the caller (route patterns). */
export class RequestTally {
  private readonly counts = new Map<string, CountSeries>();
  private readonly latencies = new Map<string, LatencySeries>();

  constructor(
    private readonly names: { counter: string; histogram: string },
    private readonly help: { counter: string; histogram: string },
    /** Upper bounds in seconds, ascending. */
    private readonly bounds: readonly number[],
    /** Labels every series carries (the registry's default labels). */
    private readonly shared: Record<string, string> = {},
  ) {}

  /** Counts one request under its labels and files its latency under role and route. */
  observe(role: string, route: string, method: string, status: number, seconds: number): void {
    const countKey = `${role}\n${route}\n${method}\n${status}`;
    let count = this.counts.get(countKey);
    if (!count) {
      count = { labels: labelText({ role, route, method, status: String(status) }), count: 0 };
      this.counts.set(countKey, count);
    }
    count.count += 1;

    const latencyKey = `${role}\n${route}`;
    let latency = this.latencies.get(latencyKey);
    if (!latency) {
      latency = {
        labels: labelText({ role, route }),
        buckets: new Float64Array(this.bounds.length + 1),
        sum: 0,
        count: 0,
      };
      this.latencies.set(latencyKey, latency);
    }
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++;
    latency.buckets[bucket]! += 1;
    latency.sum += seconds;
    latency.count += 1;
  }

  /** Both metrics in Prometheus's text exposition format (0.0.4), each line ending in a newline. */
  render(): string {
    const shared = labelText(this.shared);
    const join = (...parts: string[]) => parts.filter(Boolean).join(",");
    const { counter, histogram } = this.names;
    const lines = [`# HELP ${counter} ${this.help.counter}`, `# TYPE ${counter} counter`];
    for (const series of this.counts.values())
      lines.push(`${counter}{${join(series.labels, shared)}} ${series.count}`);
    lines.push(`# HELP ${histogram} ${this.help.histogram}`, `# TYPE ${histogram} histogram`);
    // Labels in prom-client's order, so a scrape reads the same as before: histograms put the
    // registry's labels first, counters last.
    for (const series of this.latencies.values()) {
      const labels = join(shared, series.labels);
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.buckets[i]!;
        lines.push(`${histogram}_bucket{${join(`le="${bound}"`, labels)}} ${cumulative}`);
      });
      lines.push(`${histogram}_bucket{${join('le="+Inf"', labels)}} ${series.count}`);
      lines.push(
        `${histogram}_sum{${labels}} ${series.sum}`,
        `${histogram}_count{${labels}} ${series.count}`,
      );
    }
    return lines.join("\n") + "\n";
  }
}

/** `name="value"` pairs, the value escaped as the text format asks (backslash, quote, newline). */
function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(
      ([name, value]) =>
        `${name}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`,
    )
    .join(",");
}
