import js from "@eslint/js";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import importX from "eslint-plugin-import-x";
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
const zones = Object.entries(MAY_IMPORT).flatMap(([part, allowed]) =>
  PARTS.filter((other) => other !== part && !allowed.includes(other)).map((other) => ({
    target: `./src/${part}`,
    from: `./src/${other}`,
    message: `src/${part} must not import src/${other}: dependencies point inward (see ARCHITECTURE.md).`,
  })),
);

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "data/", "bench/results/", "coverage/", ".tmp/", "reports/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
  {
    files: ["src/**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    },
    rules: {
      "import-x/no-restricted-paths": ["error", { zones }],
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
    },
  },
  {
    // Tests read JSON bodies whose shape the assertions check.
    files: ["test/**/*.ts", "**/*.test.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
