import { statSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";
import { COMMON, TEST_FILES } from "./vitest.config.js";

/**
 * Smallest test files first. Stryker stops a mutant's run at its first failing test, and Vitest's
 * own order (largest and slowest files first) would run the whole-server suites before the unit
 * test beside the file that kills the mutant in milliseconds.
 */
class SmallestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const size = (file: TestSpecification) => statSync(file.moduleId).size;
    return [...files].sort((a, b) => size(a) - size(b));
  }
}

/**
 * `MUTATE_TESTS` (comma-separated globs) narrows the run to the tests of the part being mutated,
 * e.g. `MUTATE_TESTS='test/upload/**,src/upload/**' npm run mutate -- --mutate 'src/upload/*.ts'`.
 * A narrower suite can only kill fewer mutants, so its score is a lower bound of the whole suite's;
 * what it saves is each survivor's rerun of every whole-server test that reaches it.
 */
const narrowed = process.env["MUTATE_TESTS"]
  ?.split(",")
  .map((glob) => glob.trim())
  .filter((glob) => glob !== "")
  .map((glob) => (glob.endsWith("/**") ? `${glob}/*.test.ts` : glob));

// The suite as mutation testing runs it (stryker.config.mjs): without the tests that run the
// compiled binaries or a browser in child processes. Their code runs outside the test process,
// where a mutant is never active, so they could only cost time.
export default defineConfig({
  test: {
    ...COMMON,
    // One project: Stryker's runner reads per-test coverage from a single one.
    include: narrowed !== undefined && narrowed.length > 0 ? narrowed : TEST_FILES,
    exclude: [
      "**/node_modules/**",
      "test/browser/**",
      "test/client/binary.test.ts",
      "test/hardening/abuse.test.ts",
      "test/hardening/crash.test.ts",
      "test/hardening/crash-compaction.test.ts",
      "test/hardening/exposure.test.ts",
      "test/hardening/load.test.ts",
      "test/server/shutdown.test.ts",
      "test/scaling/postgres-restart.test.ts",
      "test/scaling/processes.test.ts",
    ],
    sequence: { sequencer: SmallestFirst },
  },
});
