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
  "test/hardening/abuse.test.ts",
  "test/platform/published-sites-cache.test.ts",
  "test/scaling/postgres-restart.test.ts",
  "test/scaling/processes.test.ts",
];

/**
 * Unit tests beside the code (`src/`): pure rules, temp directories and SQLite, no server. They
 * share one module graph per worker (`isolate: false`), which takes them from about 25 s to 11 s
 * here; the few that spy on globals, stub the environment or set `process.env` stay isolated.
 */
export const UNIT_FILES = ["src/**/*.test.ts"];
export const ISOLATED_UNIT_FILES = [
  "src/core/blake3.test.ts",
  "src/platform/local/local-pack-storage.test.ts",
  "src/platform/local/pack-writer.test.ts",
  "src/server/heap-growth.test.ts",
  "src/shared/event-loop.test.ts",
  "src/shared/metrics.test.ts",
  "src/shared/request-logger.test.ts",
];

/** Options every test file runs with. */
export const COMMON: NonNullable<ViteUserConfig["test"]> = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: "forks",
  // Compiles dist/ once for the tests that run the real binaries, and installs the programs some
  // tests need (chromium, caddy, pebble, PostgreSQL) before any file runs.
  globalSetup: ["test/support/global-setup.ts"],
};

export default defineConfig({
  test: {
    ...COMMON,
    projects: [
      {
        extends: true,
        test: {
          name: "parallel",
          include: TEST_FILES,
          exclude: ["**/node_modules/**", ...ALONE_FILES, ...UNIT_FILES],
          // Vitest's default is one worker fewer than the cores: one on two. Most files wait on
          // servers, child processes and PostgreSQL more than they compute.
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT_FILES,
          exclude: ["**/node_modules/**", ...ISOLATED_UNIT_FILES],
          isolate: false,
          // The same group as `parallel`: Vitest runs projects of one group order side by side,
          // and requires them to have the same number of workers.
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "isolated-unit",
          include: ISOLATED_UNIT_FILES,
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "alone", include: ALONE_FILES, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
