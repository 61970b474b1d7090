#!/usr/bin/env node
// `npm start`: runs the server from dist/, compiling src/ first only when a file of it is newer
// than the last build (a fresh install built it through `prepare`; an edit or a `git pull` makes
// it stale). The check reads the modification times of src/ (a few milliseconds); the build takes
// about a second. The server then runs in this same process, so signals reach it directly.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const STAMP = join(ROOT, "dist/.build-stamp");

/** The newest modification time of the files under `dir` (0 when there is none). */
function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

// Without src/ (an image or a copy holding only dist/), dist/ is what there is to run.
const stale =
  existsSync(join(ROOT, "src")) &&
  (!existsSync(STAMP) ||
    newestMtime(join(ROOT, "src")) > statSync(STAMP).mtimeMs ||
    statSync(join(ROOT, "tsconfig.json")).mtimeMs > statSync(STAMP).mtimeMs);
if (stale) {
  const { buildServer } = await import("./build.mjs");
  console.error(`src/ changed since the last build: ${await buildServer()}`);
}
await import("../dist/server/main.js");
