import { defineConfig, type ViteUserConfig } from "vitest/config";

/** Where tests live: beside the code for pure rules, under test/ for the parts working together. */
export const TEST_FILES = ["src/**/*.test.ts", "test/**/*.test.ts"];

/**
 * Files that hold a latency bound under attack or load, or restart PostgreSQL: they run one at a
 * time, after the rest, so no other test file competes with them for the two cores or the
 * database. (Exposure's timeouts, the random kills of crash and crash-compaction, and the load's
 * counts and memory are only lower bounds, hang guards and sums of work: those run with the rest.)
 */
export const ALONE_FILES = [
  "test/api/prepare-stall.test.ts",
  "test/api/publish-stall.test.ts",
  "test/api/repeated-hash-stall.test.ts",
  "test/hardening/abuse.test.ts",
  "test/platform/published-sites-cache.test.ts",
  "test/scaling/postgres-restart.test.ts",
  "test/scaling/processes.test.ts",
  "test/upload/bucket-bounds.test.ts",
];

/**
 * Every file shares its worker's module graph with the files before it (`isolate: false`): the
 * server's 200 modules are imported once per worker instead of once per file, which halves the
 * suite's time. Each file still builds its own servers, databases and clocks, and what it changes
 * in the worker's globals it puts back (`test/support/worker-guard.ts` fails the file that does
 * not). These files need a worker of their own: the three that replace a module with `vi.mock`,
 * and the unit tests that spy on globals, stub the environment or set `process.env`.
 */
export const ISOLATED_FILES = [
  "test/client/full-disk.test.ts",
  "test/edge/compression-cost.test.ts",
  "test/upload/full-disk.test.ts",
  "src/core/blake3.test.ts",
  "src/platform/selfhost/content/disk/disk-pack-storage.test.ts",
  "src/platform/selfhost/content/pack-writer.test.ts",
  "src/server/heap-growth.test.ts",
  "src/shared/event-loop.test.ts",
  "src/shared/observability/metrics.test.ts",
  "src/shared/observability/request-logger.test.ts",
];

/** Options every test file runs with. */
export const COMMON: NonNullable<ViteUserConfig["test"]> = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: "forks",
  // Compiles dist/ once for the tests that run the real binaries, and installs the programs some
  // tests need (chromium, caddy, pebble, PostgreSQL, radosgw) before any file runs.
  globalSetup: ["test/support/global-setup.ts"],
  setupFiles: ["test/support/worker-guard.ts"],
};

export default defineConfig({
  test: {
    ...COMMON,
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: TEST_FILES,
          exclude: ["**/node_modules/**", ...ALONE_FILES, ...ISOLATED_FILES],
          isolate: false,
          // Vitest's default is one worker fewer than the cores: one on two. Most files wait on
          // servers, child processes and PostgreSQL more than they compute.
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          include: ISOLATED_FILES,
          // The same group as `shared`: Vitest runs projects of one group order side by side, and
          // requires them to have the same number of workers.
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "alone",
          include: ALONE_FILES,
          // Isolated: with `--sequence.shuffle` every project's order is 0, and Vitest still runs
          // an isolated one-worker project after the rest, one file at a time.
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
