import { defineConfig, type ViteUserConfig } from "vitest/config";

/** Where tests live: beside the code for pure rules, under test/ for the parts working together. */
export const TEST_FILES = ["src/**/*.test.ts", "test/**/*.test.ts"];

/**
 * Files that hold a latency bound under attack or load, kill processes at random moments, or
 * restart PostgreSQL: they run one at a time, after the rest, so no other test file competes
 * with them for the two cores they measure.
 */
export const ALONE_FILES = [
  "test/hardening/abuse.test.ts",
  "test/hardening/crash.test.ts",
  "test/hardening/crash-compaction.test.ts",
  "test/hardening/exposure.test.ts",
  "test/hardening/load.test.ts",
  "test/platform/published-sites-cache.test.ts",
  "test/scaling/postgres-restart.test.ts",
  "test/scaling/processes.test.ts",
];

/**
 * Files that run in a process of their own (Vitest's isolation), beside the parallel ones: those
 * that replace a module with `vi.mock`, and those that start programs (the binaries, caddy and
 * pebble), two of which hung in a shared worker for a reason not found (docs/testing.md). The
 * other parallel files share one module graph per worker (`isolate: false`), which saves
 * importing the server again for each file, most of the suite's time.
 */
export const ISOLATED_FILES = [
  "test/client/binary.test.ts",
  "test/client/full-disk.test.ts",
  "test/client/package.test.ts",
  "test/edge/compression-cost.test.ts",
  "test/https/caddy-pebble.test.ts",
  "test/server/lazy-sdks.test.ts",
  "test/server/postgres-server.test.ts",
  "test/server/roles.test.ts",
  "test/server/shutdown.test.ts",
  "test/upload/full-disk.test.ts",
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
          exclude: ["**/node_modules/**", ...ALONE_FILES, ...ISOLATED_FILES],
          // Vitest's default is one worker fewer than the cores: one on two. Most files wait on
          // servers, child processes and PostgreSQL more than they compute.
          maxWorkers: 3,
          // Modules are imported once per worker, not once per file. Each file still builds its
          // own servers, databases and clocks; file-setup.ts undoes what vi changes globally.
          isolate: false,
          setupFiles: ["test/support/file-setup.ts"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Beside the parallel files, as many at a time; the same maxWorkers keeps them one group
        // when --sequence.shuffle resets every groupOrder to 0.
        extends: true,
        test: { name: "isolated", include: ISOLATED_FILES, maxWorkers: 3, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: "alone", include: ALONE_FILES, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
