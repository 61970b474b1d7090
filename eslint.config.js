import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

// Dependencies point inward (ARCHITECTURE.md): shared ← core ← store, platform ← api, upload, edge
// ← server; the client sees only core and shared. The upload service and the edge, the HTTP faces
// of the self-hosted platform, are handed their storage (`upload/upload-storage.ts`,
// `edge/edge-storage.ts`, which the platform implements) and read nothing of it. Each entry: the
// folder, and the folders it may import.
const PARTS = ["shared", "core", "store", "platform", "api", "upload", "edge", "client", "server"];
const MAY_IMPORT = {
  shared: [],
  core: ["shared"],
  store: ["shared", "core"],
  platform: ["shared", "core"],
  api: ["shared", "core"],
  upload: ["shared", "core"],
  edge: ["shared", "core"],
  client: ["shared", "core"],
  server: PARTS,
};
// One `no-restricted-imports` block per part: a relative import that climbs out of the part into a
// folder it may not use is an error. (A resolver-based plugin would be more precise, but the ones
// on npm need native bindings the registry here does not carry; scripts/check-cycles.mjs, run by
// `npm run lint`, forbids import cycles.)
// The self-hosted platform is one component: outside it, code imports only its entry point
// (`platform/selfhost/index.ts`); its own tests may read its insides.
const SELFHOST_INSIDES = {
  regex: "(^|/)selfhost/(?!index\\.js$)",
  message: "outside src/platform/selfhost, import only its entry point, platform/selfhost/index.js.",
};
// The upload service's tests also wire it to the real platform (its sessions, packs and tokens).
const TESTS_MAY_ALSO_IMPORT = { upload: ["platform"] };
/** The pattern that refuses an import climbing from `part` into a folder not in `allowed`. */
function inward(part, allowed) {
  const forbidden = PARTS.filter((other) => other !== part && !allowed.includes(other));
  if (forbidden.length === 0) return [];
  return [
    {
      regex: `^(\\.\\./)+(${forbidden.join("|")})(/|$)`,
      message: `src/${part} may import only ${allowed.map((a) => `src/${a}`).join(", ") || "nothing of the project"}: dependencies point inward (see ARCHITECTURE.md).`,
    },
  ];
}
const boundaries = Object.entries(MAY_IMPORT).map(([part, allowed]) => ({
  files: [`src/${part}/**/*.ts`],
  ignores: part === "platform" ? ["src/platform/selfhost/**"] : [],
  rules: { "no-restricted-imports": ["error", { patterns: [...inward(part, allowed), SELFHOST_INSIDES] }] },
}));
// Tests of a part may read the component's insides; the inward rule still holds for them.
const testBoundaries = Object.entries(MAY_IMPORT).map(([part, allowed]) => ({
  files: [`src/${part}/**/*.test.ts`],
  rules: {
    "no-restricted-imports": [
      "error",
      { patterns: inward(part, [...allowed, ...(TESTS_MAY_ALSO_IMPORT[part] ?? [])]) },
    ],
  },
}));
const selfhostInside = {
  files: ["src/platform/selfhost/**/*.ts"],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          {
            regex: `^(\\.\\./)+(${PARTS.filter((p) => !MAY_IMPORT.platform.includes(p) && p !== "platform").join("|")})(/|$)`,
            message:
              "src/platform may import only src/shared, src/core: dependencies point inward (see ARCHITECTURE.md).",
          },
        ],
      },
    ],
  },
};

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
  ...testBoundaries,
  selfhostInside,
  {
    // Tests read JSON bodies whose shape the assertions check.
    files: ["test/**/*.ts", "**/*.test.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
