// Mutation testing of the service and its client (`npm run mutate`; `npm run mutate -- --mutate <glob>` for part of
// it). Not part of `npm test`: a whole run takes hours on two cores. docs/testing.md has the scores.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutate.config.ts" },
  // Each mutant runs only the tests that reach it.
  coverageAnalysis: "perTest",
  // Module-level mutants (constants, tables) would each rerun the whole suite; pure rules have
  // fast unit tests of their own instead.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  mutate: [
    "src/{shared,core,store,platform,api,upload,edge,server,client}/**/*.ts",
    "!src/**/*.test.ts",
    // Helpers of the unit tests beside them (left out of the build too).
    "!src/**/test-*.ts",
    "!src/**/index.ts",
    // Process entry points: run only as a child process, which per-test coverage cannot see.
    "!src/server/main.ts",
    "!src/client/cli.ts",
    "!src/client/bundle-entry.ts",
    // Run only on hashing threads, where no mutant is active.
    "!src/client/scan/hash-worker.ts",
  ],
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
