import { statSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

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

// The suite as mutation testing runs it (stryker.config.mjs): without the tests that run the
// compiled binaries or a browser in child processes. Their code runs outside the test process,
// where a mutant is never active, so they could only cost time.
export default mergeConfig(
  base,
  defineConfig({
    test: {
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
  }),
);
