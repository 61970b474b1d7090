import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { RequestTally } from "./request-tally.js";

const BOUNDS = [0.001, 0.01, 0.1, 1];
const NAMES = { counter: "http_requests_total", histogram: "http_request_duration_seconds" };
const HELP = { counter: "Requests.", histogram: "Latency." };
const OBSERVED: [string, string, string, number, number][] = [
  ["edge", "site", "GET", 200, 0.0004],
  ["edge", "site", "GET", 200, 0.001],
  ["edge", "site", "HEAD", 304, 0.05],
  ["api", "/projects/:slug", "POST", 201, 2.5],
  ["api", 'odd "route"\\ with\nlines', "GET", 404, 0.02],
];

/** The same observations through prom-client, the reference the tally must render like. */
async function promClientText(): Promise<string> {
  const registry = new Registry();
  registry.setDefaultLabels({ process_roles: "edge" });
  const counter = new Counter({
    name: NAMES.counter,
    help: HELP.counter,
    labelNames: ["role", "route", "method", "status"],
    registers: [registry],
  });
  const histogram = new Histogram({
    name: NAMES.histogram,
    help: HELP.histogram,
    labelNames: ["role", "route"],
    buckets: BOUNDS,
    registers: [registry],
  });
  for (const [role, route, method, status, seconds] of OBSERVED) {
    counter.inc({ role, route, method, status: String(status) });
    histogram.observe({ role, route }, seconds);
  }
  return registry.metrics();
}

/** A text's sample lines, each with its labels sorted, so the order of labels and series does not matter. */
function normalized(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
      if (!match) return line;
      const labels = [...match[2]!.matchAll(/[a-z_]+="(?:[^"\\]|\\.)*"/g)].map((m) => m[0]).sort();
      return `${match[1]}{${labels.join(",")}} ${Number(match[3])}`;
    })
    .sort();
}

describe("RequestTally", () => {
  it("render: the same series and values as prom-client's counter and histogram for the same requests", async () => {
    const tally = new RequestTally(NAMES, HELP, BOUNDS, { process_roles: "edge" });
    for (const [role, route, method, status, seconds] of OBSERVED)
      tally.observe(role, route, method, status, seconds);
    const ours = tally.render();
    expect(normalized(ours)).toEqual(normalized(await promClientText()));
    expect(ours).toContain(`# TYPE ${NAMES.histogram} histogram`);
    expect(ours).toContain(`# TYPE ${NAMES.counter} counter`);
  });

  it("render: a bound equal to the observation counts it (le is inclusive), cumulatively", () => {
    const tally = new RequestTally(NAMES, HELP, BOUNDS);
    tally.observe("edge", "site", "GET", 200, 0.01);
    tally.observe("edge", "site", "GET", 200, 5);
    const text = tally.render();
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.001",role="edge",route="site"} 0');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.01",role="edge",route="site"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{le="1",role="edge",route="site"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{le="+Inf",role="edge",route="site"} 2');
    expect(text).toContain('http_request_duration_seconds_count{role="edge",route="site"} 2');
  });
});
