import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./lib/paths.js";

// `npm run bench:limiter`: a micro-benchmark of the in-memory rate limiter (issue 31, H6). It times
// hits that each start a new key's window, with 100 and with 1,000,000 live windows held, and
// prints both and their ratio. `--module=<path>` times another build of `core/rate-limiter.js`
// (an older checkout's dist/, to compare); `--hits=N` sets the hits timed at each size. `--http`
// also times whole requests of new clients against the real server with few keys and with
// 1,000,000 held (bench/lib/limiter-http.ts; wrk from bench/install-tools.sh): the cost per request.

interface Limiter {
  hit(key: string): void;
  readonly trackedKeys: number;
}
type LimiterClass = new (
  rule: { limit: number; windowSeconds: number },
  clock: { now(): number },
  maxKeys?: number,
) => Limiter;

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [name, value = ""] = arg.replace(/^--/, "").split("=");
    return [name!, value];
  }),
);
const modulePath = args.get("module") || join(REPO_ROOT, "dist", "core", "rate-limiter.js");
const hits = Number(args.get("hits") || 20_000);
const { RateLimiter } = (await import(pathToFileURL(modulePath).href)) as { RateLimiter: LimiterClass };

/** Nanoseconds a hit that starts a new key's window takes, with `live` windows held (median of 5). */
function nsPerNewKey(live: number): number {
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    // A frozen clock: every window stays live, as under a flood within one window.
    const limiter = new RateLimiter({ limit: 10, windowSeconds: 60 }, { now: () => 0 }, live + hits + 1);
    for (let i = 0; i < live; i++) limiter.hit(`live-${i}`);
    const start = process.hrtime.bigint();
    for (let i = 0; i < hits; i++) limiter.hit(`new-${run}-${i}`);
    runs.push(Number(process.hrtime.bigint() - start) / hits);
    if (limiter.trackedKeys !== live + hits) throw new Error(`expected ${live + hits} keys`);
  }
  return runs.sort((a, b) => a - b)[2]!;
}

const small = nsPerNewKey(100);
const large = nsPerNewKey(1_000_000);
console.log(`rate limiter (${modulePath}), ${hits} new keys timed at each size, median of 5:`);
console.log(`  100 live keys:        ${(small / 1000).toFixed(2)} µs a hit`);
console.log(`  1,000,000 live keys:  ${(large / 1000).toFixed(2)} µs a hit`);
console.log(`  ratio:                ${(large / small).toFixed(2)}`);

if (args.has("http")) {
  const { measureLimiterHttp } = await import("./lib/limiter-http.js");
  const http = await measureLimiterHttp({
    rounds: 5,
    seconds: 3,
    fillKeys: Number(args.get("fill") || 1_000_000),
    log: (line) => console.log(`  ${line}`),
  });
  const rps = (values: number[]) => values.map((value) => value.toFixed(0)).join(" / ");
  console.log(
    `whole requests (GET /tls/ask, each from a new client address), ${http.rounds} rounds of ${http.seconds} s:`,
  );
  console.log(
    `  about 100 keys held:  ${rps(http.few.rps)} req/s, server RSS ${http.few.rssMb.toFixed(0)} MB`,
  );
  console.log(
    `  ${http.fillKeys.toLocaleString("en-US")}+ keys held: ${rps(http.many.rps)} req/s, server RSS ${http.many.rssMb.toFixed(0)} MB`,
  );
  console.log(
    `  cost per request, ${http.fillKeys.toLocaleString("en-US")}+ / 100 keys (median req/s ratio): ${http.ratio.toFixed(2)}`,
  );
}
