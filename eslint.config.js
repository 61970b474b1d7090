import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

// Dependencies point inward (ARCHITECTURE.md): shared ← core ← store, platform ← api, upload, edge
// ← server; the client sees only core and shared. `upload` and `edge` are the HTTP faces of the
// local platform and so may read it. Each entry: the folder, and the folders it must not import.
const PARTS = ["shared", "core", "store", "platform", "api", "upload", "edge", "client", "server"];
const MAY_IMPORT = {
  shared: [],
  core: ["shared"],
  store: ["shared", "core"],
  platform: ["shared", "core"],
  api: ["shared", "core"],
  upload: ["shared", "core", "platform"],
  edge: ["shared", "core", "platform"],
  client: ["shared", "core"],
  server: PARTS,
};
// One `no-restricted-imports` block per part: a relative import that climbs out of the part into a
// folder it may not use is an error. (A resolver-based plugin would be more precise, but the ones
// on npm need native bindings the registry here does not carry; scripts/check-cycles.mjs, run by
// `npm run lint`, forbids import cycles.)
const boundaries = Object.entries(MAY_IMPORT)
  .filter(([part]) => part !== "server")
  .map(([part, allowed]) => {
    const forbidden = PARTS.filter((other) => other !== part && !allowed.includes(other));
    return {
      files: [`src/${part}/**/*.ts`],
      rules: {
        "no-restricted-imports": [
          "error",
          {
            patterns: [
              {
                regex: `^(\\.\\./)+(${forbidden.join("|")})(/|$)`,
                message: `src/${part} may import only ${allowed.map((a) => `src/${a}`).join(", ") || "nothing of the project"}: dependencies point inward (see ARCHITECTURE.md).`,
              },
            ],
          },
        ],
      },
    };
  });

export default tseslint.config(
  {
    ignores: [
      "dist/",
      "packages/client/dist/",
      "node_modules/",
      "data/",
      "bench/results/",
      "coverage/",
      ".tmp/",
      "reports/",
      ".stryker-tmp/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
  ...boundaries,
  {
    // Tests read JSON bodies whose shape the assertions check.
    files: ["test/**/*.ts", "**/*.test.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
