import { LUA_REPORT } from "./paths.js";
import { runTimed } from "./proc.js";

/** One wrk run, as its report script printed it. */
export interface WrkResult {
  requests: number;
  seconds: number;
  /** Requests per second over the run. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Socket errors, timeouts, and responses with a status of 400 or more (counted again in httpErrors). */
  errors: number;
  httpErrors: number;
  bytes: number;
  /** Answers 429 (counted only with `addresses`). */
  limited: number;
}

export interface WrkOptions {
  url: string;
  seconds: number;
  threads?: number;
  connections?: number;
  headers?: Record<string, string>;
  /** A file whose content every request POSTs. */
  bodyFile?: string;
  /** Give every request a query string of its own (no two targets alike: no route is reused). */
  uniqueTargets?: boolean;
  /** A file of hostnames, one a line, that requests take in turn as their Host header. */
  hostsFile?: string;
  /** Every request from a client address of its own (X-Forwarded-For) in the /8 numbered so. */
  addresses?: number;
}

/** Runs wrk (keep-alive, 2 threads and 50 connections unless told otherwise) and reads its report. */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const args = [
    `-t${options.threads ?? 2}`,
    `-c${options.connections ?? 50}`,
    `-d${options.seconds}s`,
    "--timeout",
    "10s",
    "-s",
    LUA_REPORT,
  ];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}: ${value}`);
  args.push(options.url);
  const env = {
    BENCH_WRK_BODY: options.bodyFile ?? "",
    BENCH_WRK_UNIQUE: options.uniqueTargets ? "1" : "",
    BENCH_WRK_HOSTS: options.hostsFile ?? "",
    BENCH_WRK_ADDRESSES: options.addresses === undefined ? "" : String(options.addresses),
  };
  const run = await runTimed("wrk", args, { env });
  const line = /^BENCH_WRK (\{.*\})$/m.exec(run.stdout);
  if (run.code !== 0 || !line) throw new Error(`wrk failed (${run.code}):\n${run.stdout}\n${run.stderr}`);
  const raw = JSON.parse(line[1]!) as Record<string, number>;
  const n = (key: string): number => raw[key] ?? 0;
  const seconds = n("duration_us") / 1e6;
  return {
    requests: n("requests"),
    seconds,
    rps: n("requests") / seconds,
    p50Ms: n("p50_us") / 1000,
    p99Ms: n("p99_us") / 1000,
    maxMs: n("max_us") / 1000,
    errors: n("connect") + n("read") + n("write") + n("timeout") + n("status"),
    httpErrors: n("status"),
    bytes: n("bytes"),
    limited: Number(/^BENCH_WRK_LIMITED (\d+)$/m.exec(run.stdout)?.[1] ?? 0),
  };
}
