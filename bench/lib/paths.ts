import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root: the nearest folder above this module whose package.json is this project's. */
function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "static-deploy"
    ) {
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("bench: cannot find the repository root");
    dir = parent;
  }
}

/** The repository this bench belongs to. */
export const REPO_ROOT = findRepoRoot();
/** The compiled server binary's entry, as `deploy-server` runs it. */
export const SERVER_MAIN = join(REPO_ROOT, "dist", "server", "main.js");
/**
 * The client as it ships: the one bundled file of the npm package (`npm run build:client`), which
 * starts in a third less time than the compiled modules under dist/ that `bin/deploy.js` loads
 * one by one (an unchanged 10,000-file redeploy: about 250 ms against 390 ms here).
 */
export const CLIENT_BIN = join(REPO_ROOT, "packages", "client", "dist", "deploy.js");
/** The compiled bench (this file's siblings once built). */
export const BENCH_DIST = join(REPO_ROOT, "dist", "bench");
/** The wrk script that sets POST bodies and prints the report line. */
export const LUA_REPORT = join(REPO_ROOT, "bench", "lua", "wrk-report.lua");
/** Where runs write their JSON and profiles. */
export const RESULTS_DIR = join(REPO_ROOT, "bench", "results");
/** The report a full run rewrites. */
export const BENCHMARKS_MD = join(REPO_ROOT, "BENCHMARKS.md");
