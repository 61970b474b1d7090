import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { RequestTally } from "./request-tally.js";

/** The roles a process may run (ROLES). */
export type Role = "api" | "upload" | "edge";

/** The edge's memory cache: lookups served from it, lookups that had to read the content, bytes held. */
export interface EdgeCacheStats {
  hits: number;
  misses: number;
  bytes: number;
}

/** Figures a part reads off itself when Prometheus scrapes, rather than counting as it goes. */
export interface MetricSources {
  edgeCache?: () => EdgeCacheStats;
  /** Content the platform holds: bytes of packs on disk or in the object store, bytes still named. */
  content?: () => Promise<{ packs: number; bytes: number; liveBytes: number }>;
}

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

// Buckets from 1 ms to 10 s: edge hits sit at the bottom, deploys of large sites near the top.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A method is the client's to choose: only the usual ones get a series of their own. */
function knownMethod(method: string): string {
  return KNOWN_METHODS.has(method) ? method : "OTHER";
}

/**
 * One process's Prometheus metrics, in a registry of its own (so two servers in one test process
 * never share counters). Label values are bounded: a route is its pattern, never a raw path or a
 * hostname, so a stranger cannot grow the series without end.
 */
export class Metrics {
  readonly registry = new Registry();
  /** Deploys completed (revisions published), and what the sweeper did. */
  readonly deploys = new Counter({
    name: "deploys_total",
    help: "Deploys completed: revisions published.",
    registers: [this.registry],
  });
  readonly uploadedBytes = new Counter({
    name: "upload_bytes_total",
    help: "Bytes of bucket bodies accepted by the upload service.",
    registers: [this.registry],
  });
  readonly sweeps = new Counter({
    name: "gc_runs_total",
    help: "Sweeps (expiry and garbage collection) run, by result.",
    labelNames: ["result"] as const,
    registers: [this.registry],
  });
  /** Request body bytes the API has received and not yet answered (its body budget). */
  readonly bodyBytesInFlight = new Gauge({
    name: "api_body_bytes_in_flight",
    help: "Request body bytes the API has received and not yet answered.",
    registers: [this.registry],
  });
  readonly reclaimedBytes = new Counter({
    name: "gc_reclaimed_bytes_total",
    help: "Content bytes the sweeps reclaimed.",
    registers: [this.registry],
  });

  // Requests are counted outside prom-client (see request-tally.ts) and rendered beside its metrics.
  private readonly requests: RequestTally;

  constructor(roles: string) {
    this.requests = new RequestTally(
      { counter: "http_requests_total", histogram: "http_request_duration_seconds" },
      {
        counter: "HTTP requests answered, by role, route pattern, method and status.",
        histogram: "Time from a request's arrival to its answer, by role and route pattern.",
      },
      LATENCY_BUCKETS,
      { process_roles: roles },
    );
    this.registry.setDefaultLabels({ process_roles: roles });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts one answered request and its latency. */
  observeRequest(role: Role, route: string, method: string, status: number, seconds: number): void {
    this.requests.observe(role, route, knownMethod(method), status, seconds);
  }

  /**
   * Counts answered requests of one role and route (the edge's one label), taken once so that a
   * request finds its series without a lookup by role and route.
   */
  requestsOf(role: Role, route: string): (method: string, status: number, seconds: number) => void {
    const tally = this.requests.route(role, route);
    return (method, status, seconds) => tally.observe(knownMethod(method), status, seconds);
  }

  /** The metrics in Prometheus's text format, and its content type. */
  async render(): Promise<{ body: string; contentType: string }> {
    const body = (await this.registry.metrics()) + "\n" + this.requests.render();
    return { body, contentType: this.registry.contentType };
  }

  /** Adds the figures read off the parts at each scrape; once, when the parts are built. */
  addSources(sources: MetricSources): void {
    const { edgeCache, content } = sources;
    if (edgeCache) {
      const counted = (name: string, help: string, pick: (s: EdgeCacheStats) => number) =>
        new Counter({
          name,
          help,
          registers: [this.registry],
          collect() {
            // The cache counts; a scrape copies its total in (a counter never goes down: the cache's
            // totals only grow for the life of the process).
            this.reset();
            this.inc(pick(edgeCache()));
          },
        });
      counted("edge_cache_hits_total", "Edge content lookups answered from memory.", (s) => s.hits);
      counted("edge_cache_misses_total", "Edge content lookups that read the store.", (s) => s.misses);
      new Gauge({
        name: "edge_cache_bytes",
        help: "Bytes the edge's memory cache holds.",
        registers: [this.registry],
        collect() {
          this.set(edgeCache().bytes);
        },
      });
    }
    if (content) {
      new Gauge({
        name: "content_packs",
        help: "Packs of content stored.",
        registers: [this.registry],
        async collect() {
          this.set((await content()).packs);
        },
      });
      new Gauge({
        name: "content_stored_bytes",
        help: "Bytes of content stored: all pack bytes, and the live ones that rows still name.",
        labelNames: ["kind"] as const,
        registers: [this.registry],
        async collect() {
          const stats = await content();
          this.set({ kind: "all" }, stats.bytes);
          this.set({ kind: "live" }, stats.liveBytes);
        },
      });
    }
  }
}
