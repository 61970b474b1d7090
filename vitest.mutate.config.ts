import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

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
        "test/hardening/exposure.test.ts",
        "test/hardening/load.test.ts",
        "test/server/shutdown.test.ts",
      ],
    },
  }),
);
