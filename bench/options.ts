import { tmpdir } from "node:os";

/** Which benchmarks exist. */
export type SuiteName = "edge" | "rules" | "deploy" | "api" | "attacks" | "hash";
/** Every benchmark, in the order a run takes them. */
export const SUITES: readonly SuiteName[] = ["edge", "rules", "deploy", "api", "attacks", "hash"];

/** One generated site of benchmark 2. */
export interface SiteSpec {
  name: string;
  files: number;
  bytes: number;
}

/** What a run does, from its arguments and environment. */
export interface BenchOptions {
  quick: boolean;
  suites: SuiteName[];
  profile: boolean;
  /** Wait (a few minutes at most) for the load average to fall below 1 before measuring. */
  waitIdle: boolean;
  workRoot: string;
  edge: { rounds: number; seconds: number; warmupSeconds: number };
  /** Benchmark 4: the edge with and without `_redirects` and `_headers`. */
  rules: { rounds: number; seconds: number; warmupSeconds: number };
  deploy: { rounds: number; sites: SiteSpec[]; changedShare: number };
  api: {
    rounds: number;
    entries: number[];
    loadRounds: number;
    loadSeconds: number;
    loadManifestFiles: number;
  };
  /** Issue 31's attacks: paths and copies of the repeated part (H1), paths of each preview (H3). */
  attacks: { h1Paths: number; h1Copies: number; h3Paths: number };
  /** Benchmark 5 (issue 9): BLAKE3 libraries on many 2 KB files and a few 25 MiB ones. */
  hash: { rounds: number; smallFiles: number; largeFiles: number };
}

const MB = 1_000_000;

const USAGE = `usage: npm run bench -- [--quick] [--only=edge,rules,deploy,api,attacks,hash] [--profile] [--wait-idle]
  --quick       small sizes and few rounds, for development (or BENCH_QUICK=1); BENCHMARKS.md is left alone
  --only=LIST   run only these benchmarks; BENCHMARKS.md is left alone
  --profile     afterwards, profile the slowest path of each benchmark with node --cpu-prof (BENCH_PROFILE=1);
                on by default for a full run (not with --quick or --only); --no-profile (BENCH_PROFILE=0) skips it
  --wait-idle   wait up to 5 minutes for the 1-minute load average to fall below 1 first
Environment: BENCH_WORK_DIR (default the system's temporary folder) holds the generated sites.`;

/** Parses the command line; exits with the usage on a mistake. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  let quick = env.BENCH_QUICK === "1";
  let profile: boolean | undefined =
    env.BENCH_PROFILE === "1" ? true : env.BENCH_PROFILE === "0" ? false : undefined;
  let waitIdle = false;
  let suites: SuiteName[] = [...SUITES];
  for (const arg of argv) {
    if (arg === "--quick") quick = true;
    else if (arg === "--profile") profile = true;
    else if (arg === "--no-profile") profile = false;
    else if (arg === "--wait-idle") waitIdle = true;
    else if (arg.startsWith("--only=")) {
      const names = arg.slice("--only=".length).split(",");
      if (!names.every((name): name is SuiteName => (SUITES as readonly string[]).includes(name))) usage(arg);
      suites = SUITES.filter((name) => names.includes(name));
    } else usage(arg);
  }
  const workRoot = env.BENCH_WORK_DIR || tmpdir();
  if (quick) {
    return {
      quick,
      suites,
      profile: profile ?? false,
      waitIdle,
      workRoot,
      edge: { rounds: 2, seconds: 1, warmupSeconds: 1 },
      rules: { rounds: 2, seconds: 1, warmupSeconds: 1 },
      deploy: {
        rounds: 2,
        sites: [
          { name: "200 files", files: 200, bytes: 4 * MB },
          { name: "1,000 files", files: 1000, bytes: 20 * MB },
          { name: "5,000 small files", files: 5000, bytes: 9 * MB },
        ],
        changedShare: 0.01,
      },
      api: {
        rounds: 2,
        entries: [2000, 10_000],
        loadRounds: 1,
        loadSeconds: 1,
        loadManifestFiles: 50,
      },
      attacks: { h1Paths: 10_000, h1Copies: 200, h3Paths: 2000 },
      hash: { rounds: 2, smallFiles: 5000, largeFiles: 1 },
    };
  }
  return {
    quick,
    suites,
    // Profiles belong with a full run: --only is for measuring some benchmarks, not profiling all.
    profile: profile ?? suites.length === SUITES.length,
    waitIdle,
    workRoot,
    edge: { rounds: 7, seconds: 2, warmupSeconds: 1 },
    rules: { rounds: 5, seconds: 2, warmupSeconds: 1 },
    deploy: {
      rounds: 5,
      sites: [
        { name: "1,000 files", files: 1000, bytes: 20 * MB },
        { name: "10,000 files", files: 10_000, bytes: 200 * MB },
        // Per-file costs (a part, a hash call, a row) dominate here, as on documentation sites.
        { name: "50,000 small files", files: 50_000, bytes: 89 * MB },
      ],
      changedShare: 0.01,
    },
    api: {
      rounds: 5,
      entries: [20_000, 100_000],
      loadRounds: 3,
      loadSeconds: 5,
      loadManifestFiles: 50,
    },
    attacks: { h1Paths: 100_000, h1Copies: 2000, h3Paths: 20_000 },
    hash: { rounds: 5, smallFiles: 20_000, largeFiles: 4 },
  };
}

function usage(arg: string): never {
  console.error(`bench: unknown argument ${arg}\n${USAGE}`);
  process.exit(2);
}
