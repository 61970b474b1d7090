// Builds the standalone client: src/client and its dependencies bundled into one ESM file,
// packages/client/dist/deploy.js, with no native code and no runtime dependency but one optional
// one (native BLAKE3, prebuilt binaries from npm, loaded when present: src/core/blake3.ts), so
// that `npm pack` of packages/client installs anywhere Node.js 20.19+ runs, with no compiler.
// `npm pack` in packages/client runs it first (its `prepack`): a build that fails stops the pack,
// and the old bundle is removed before building, so no tarball ever ships a stale or missing one.
import { chmodSync, readFileSync, rmSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const at = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const rootPackage = JSON.parse(readFileSync(at("package.json"), "utf8"));
const clientPackage = JSON.parse(readFileSync(at("packages/client/package.json"), "utf8"));
if (clientPackage.version !== rootPackage.version) {
  console.error(
    `packages/client/package.json is at ${clientPackage.version}, package.json at ${rootPackage.version}: make them agree`,
  );
  process.exit(1);
}

const esbuild = await import("esbuild").catch(() => {
  console.error(
    "esbuild is not installed: run `npm ci` (or `npm ci --omit=dev`) at the repository's root first",
  );
  process.exit(1);
});
const outfile = at("packages/client/dist/deploy.js");
rmSync(outfile, { force: true });
const result = await esbuild.build({
  entryPoints: [at("src/client/bundle-entry.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20.19",
  // hash-wasm's ES module build, so only BLAKE3 is bundled (its UMD build holds every algorithm:
  // 234 KiB of the 338 KiB bundle).
  mainFields: ["module", "main"],
  // Smaller to read at every start; identifiers are kept, so a DEBUG=1 stack trace still reads.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  // Bundled CommonJS (the `ignore` package) may require Node's own modules.
  banner: {
    js: '#!/usr/bin/env node\nimport{createRequire as __createRequire}from"node:module";const require=__createRequire(import.meta.url);',
  },
  define: { CLIENT_VERSION: JSON.stringify(rootPackage.version) },
  metafile: true,
  logLevel: "warning",
});
const inputs = Object.keys(result.metafile.inputs);
const native = inputs.filter((input) => input.endsWith(".node") || input.includes("better-sqlite3"));
if (native.length > 0) {
  console.error(`the client must hold no native code, but the bundle reached: ${native.join(", ")}`);
  process.exit(1);
}
chmodSync(outfile, 0o755);
const kib = (statSync(outfile).size / 1024).toFixed(1);
console.error(`packages/client/dist/deploy.js: ${inputs.length} modules bundled, ${kib} KiB`);
