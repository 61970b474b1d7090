import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Compiles dist/ once for the tests that run the real binaries.
    globalSetup: ["test/support/global-setup.ts"],
  },
});
