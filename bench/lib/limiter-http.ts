import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServerProcess, type ServerProcess } from "./server-process.js";
import { summarize } from "./stats.js";
import { runWrk, type WrkResult } from "./wrk.js";

// The limiter per request (issue 31, H6): the real server behind a trusted proxy, every request
// from a client address it has not seen (so each one starts a key's window), timed on a fresh
// server (about 100 keys when it starts) and on one holding 1,000,000 live keys, in alternate
// rounds. The route is `GET /tls/ask` without a name: the per-address limiter, then a 400, no
// database read, so the limiter's share of the request is as large as it gets.

const SERVER_ENV = {
  TRUST_PROXY: "1",
  // Room for every key the run makes, so no new client falls into the overflow window (checked).
  RATE_LIMIT_KEYS: "4000000",
  // Every window stays live for the whole run.
  TLS_ASK_LIMIT_WINDOW_SECONDS: "86400",
  // The warm-up's one client is never refused.
  TLS_ASK_LIMIT_PER_ADDRESS: "1000000000",
  LOG_LEVEL: "warn",
};

/** One side's rounds: requests a second, and the server's resident memory after. */
export interface LimiterHttpSide {
  rps: number[];
  p99Ms: number[];
  rssMb: number;
}

/** Requests a second for new clients with few keys held and with `fillKeys` (at least) held. */
export interface LimiterHttpResult {
  seconds: number;
  rounds: number;
  fillKeys: number;
  fillSeconds: number;
  few: LimiterHttpSide;
  many: LimiterHttpSide;
  ratio: number;
}

/** The process's resident memory now, in MB. */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Requests `GET /tls/ask` for `seconds`, each from a new address in the /8 numbered `block`. */
async function newClients(
  server: ServerProcess,
  block: number,
  seconds: number,
  stopAfter?: number,
): Promise<WrkResult> {
  const result = await runWrk({
    url: `${server.urls.api}/tls/ask`,
    seconds,
    addresses: block,
    ...(stopAfter === undefined ? {} : { stopAfter }),
  });
  if (result.limited > 0)
    throw new Error(`${result.limited} new clients were refused 429: the limiter overflowed`);
  return result;
}

/**
 * Warms a fresh server as the filled one is warm (3 s of requests from one client, one key), then
 * 100 requests from new addresses: the measurement starts with about 100 keys held.
 */
async function warmUp(server: ServerProcess): Promise<void> {
  await runWrk({ url: `${server.urls.api}/tls/ask`, seconds: 3, headers: { "x-forwarded-for": "12.1.0.1" } });
  for (let i = 0; i < 100; i++) {
    const answer = await fetch(`${server.urls.api}/tls/ask`, {
      headers: { "x-forwarded-for": `12.0.0.${i}` },
    });
    await answer.arrayBuffer();
    if (answer.status !== 400) throw new Error(`GET /tls/ask answered ${answer.status}, not 400`);
  }
}

/**
 * Times new clients' requests (the cost per request, a request a new key) against a server holding few keys and one holding `fillKeys`, in
 * `rounds` alternate rounds of `seconds` each (a fresh server for every "few" round).
 */
export async function measureLimiterHttp(options: {
  rounds: number;
  seconds: number;
  fillKeys: number;
  log: (line: string) => void;
}): Promise<LimiterHttpResult> {
  const work = mkdtempSync(join(tmpdir(), "limiter-http-"));
  const start = (name: string) => startServerProcess({ dataDir: join(work, name), env: SERVER_ENV });
  const many = await start("many");
  try {
    const filling = performance.now();
    // wrk runs for a duration, not a count: segments of 15 s, each in a /8 of its own, until enough.
    let made = 0;
    for (let block = 30; made < options.fillKeys; block++)
      made += (await newClients(many, block, 15)).requests;
    const fillSeconds = (performance.now() - filling) / 1000;
    options.log(`limiter: ${made.toLocaleString("en-US")} keys made in ${fillSeconds.toFixed(0)} s`);
    const sides = {
      few: { rps: [] as number[], p99Ms: [] as number[], rssMb: 0 },
      many: { rps: [] as number[], p99Ms: [] as number[], rssMb: 0 },
    };
    for (let round = 0; round < options.rounds; round++) {
      const few = await start(`few-${round}`);
      try {
        await warmUp(few);
        const small = await newClients(few, 13, options.seconds);
        sides.few.rps.push(small.rps);
        sides.few.p99Ms.push(small.p99Ms);
        sides.few.rssMb = rssMb(few.pid);
      } finally {
        await few.stop();
      }
      const large = await newClients(many, 20 + round, options.seconds);
      sides.many.rps.push(large.rps);
      sides.many.p99Ms.push(large.p99Ms);
      sides.many.rssMb = rssMb(many.pid);
      options.log(
        `limiter: round ${round + 1}: ${sides.few.rps.at(-1)!.toFixed(0)} req/s with few keys, ` +
          `${large.rps.toFixed(0)} with ${made.toLocaleString("en-US")} or more`,
      );
    }
    return {
      seconds: options.seconds,
      rounds: options.rounds,
      fillKeys: made,
      fillSeconds,
      ...sides,
      ratio: summarize(sides.few.rps).median / summarize(sides.many.rps).median,
    };
  } finally {
    await many.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
