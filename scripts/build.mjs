#!/usr/bin/env node
// `npm run build`: compiles src/ into dist/ (the same files tsc would emit: one .js and its source
// map per .ts, in the same folders) with esbuild, file by file, without type checking. The type
// check is `npm run typecheck`'s job; tsconfig.json's isolatedModules and verbatimModuleSyntax make
// every file compile on its own, so the output is what tsc writes. esbuild is a dependency (not a
// devDependency) so that `npm ci --omit=dev` builds the server through `prepare` in a second,
// where tsc took most of a minute and is not installed in production.
import { build } from "esbuild";
import { readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** The stamp `npm start` compares with src/: written last, so a stamp means a whole build. */
export const STAMP = join(ROOT, "dist/.build-stamp");
/** Files of src/ that tsconfig.build.json leaves out. */
const NOT_BUILT = /(\.test\.ts|^test-.*\.ts|\.d\.ts)$/;

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !NOT_BUILT.test(entry.name) ? [path] : [];
  });
}

/** Compiles every file of src/ into dist/ and writes the stamp. */
export async function buildServer() {
  const started = performance.now();
  const entryPoints = sources(join(ROOT, "src"));
  await build({
    entryPoints,
    outbase: join(ROOT, "src"),
    outdir: join(ROOT, "dist"),
    bundle: false,
    platform: "node",
    format: "esm",
    target: "node20.19",
    sourcemap: true,
    tsconfig: join(ROOT, "tsconfig.build.json"),
    logLevel: "warning",
  });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  const ms = Math.round(performance.now() - started);
  return `${relative(ROOT, join(ROOT, "dist"))}/: ${entryPoints.length} files compiled in ${ms} ms`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await buildServer());
