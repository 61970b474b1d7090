/**
 * The request counter and latency histogram, kept as plain numbers per series and written in
 * Prometheus's text format only when scraped. prom-client builds a label object, hashes and
 * validates it for every observation: about 5% of the edge's CPU on a remembered page (issue 32),
 * for figures read once a scrape. Here a request costs two or four map lookups on strings and a
 * number it already has (no key is built) and a bucket scan.
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

/**
 * The requests of one role and route: its latency series and its counts by method and status. A
 * caller that always counts under the same route (the edge) keeps it, so a request costs two map
 * lookups on a method string and a status number, and no key is built.
 */
export class RouteTally {
  private readonly counts = new Map<string, Map<number, CountSeries>>();
  /** The latency series (rendered once it has an observation, as prom-client does). */
  readonly latency: LatencySeries;

  constructor(
    private readonly role: string,
    private readonly route: string,
    private readonly bounds: readonly number[],
  ) {
    this.latency = {
      labels: labelText({ role, route }),
      buckets: new Float64Array(bounds.length + 1),
      sum: 0,
      count: 0,
    };
  }

  /** Counts one request under its method and status and files its latency. */
  observe(method: string, status: number, seconds: number): void {
    let byStatus = this.counts.get(method);
    if (byStatus === undefined) this.counts.set(method, (byStatus = new Map()));
    let count = byStatus.get(status);
    if (count === undefined) {
      const labels = labelText({ role: this.role, route: this.route, method, status: String(status) });
      byStatus.set(status, (count = { labels, count: 0 }));
    }
    count.count += 1;

    const { latency, bounds } = this;
    let bucket = 0;
    while (bucket < bounds.length && seconds > bounds[bucket]!) bucket++;
    latency.buckets[bucket]! += 1;
    latency.sum += seconds;
    latency.count += 1;
  }

  /** The count series, by method then status. */
  *countSeries(): Iterable<CountSeries> {
    for (const byStatus of this.counts.values()) yield* byStatus.values();
  }
}

/** Counts and latencies of answered requests; labels are bounded by the caller (route patterns). */
export class RequestTally {
  // By role, then route.
  private readonly routes = new Map<string, Map<string, RouteTally>>();

  constructor(
    private readonly names: { counter: string; histogram: string },
    private readonly help: { counter: string; histogram: string },
    /** Upper bounds in seconds, ascending. */
    private readonly bounds: readonly number[],
    /** Labels every series carries (the registry's default labels). */
    private readonly shared: Record<string, string> = {},
  ) {}

  /** The tally of one role and route, made on first use; keep it to count without the lookup. */
  route(role: string, route: string): RouteTally {
    let byRoute = this.routes.get(role);
    if (byRoute === undefined) this.routes.set(role, (byRoute = new Map()));
    let tally = byRoute.get(route);
    if (tally === undefined) byRoute.set(route, (tally = new RouteTally(role, route, this.bounds)));
    return tally;
  }

  /** Counts one request under its labels and files its latency under role and route. */
  observe(role: string, route: string, method: string, status: number, seconds: number): void {
    this.route(role, route).observe(method, status, seconds);
  }

  /** Both metrics in Prometheus's text exposition format (0.0.4), each line ending in a newline. */
  render(): string {
    const shared = labelText(this.shared);
    const join = (...parts: string[]) => parts.filter(Boolean).join(",");
    const { counter, histogram } = this.names;
    const lines = [`# HELP ${counter} ${this.help.counter}`, `# TYPE ${counter} counter`];
    const tallies = [...this.routes.values()].flatMap((byRoute) => [...byRoute.values()]);
    for (const tally of tallies)
      for (const series of tally.countSeries())
        lines.push(`${counter}{${join(series.labels, shared)}} ${series.count}`);
    lines.push(`# HELP ${histogram} ${this.help.histogram}`, `# TYPE ${histogram} histogram`);
    // Labels in prom-client's order, so a scrape reads the same as before: histograms put the
    // registry's labels first, counters last.
    for (const { latency: series } of tallies) {
      if (series.count === 0) continue;
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
