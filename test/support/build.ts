import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** What the tests run from dist/: the two binaries' entry points. */
const ENTRIES = ["dist/server/main.js", "dist/client/cli.js"].map((entry) => join(ROOT, entry));

/** Files of src/ that tsconfig.build.json leaves out: a change to one leaves dist/ as it is. */
const NOT_BUILT = /(\.test\.ts|^test-.*\.ts)$/;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && NOT_BUILT.test(entry.name)) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Compiles dist/ (`tsc -p tsconfig.build.json`) unless both entry points are newer than every file
 * of src/. Test files running in parallel take turns through a lock directory, so one builds and
 * the others find dist/ fresh. Type errors elsewhere in src/ (work in progress of others) do not
 * stop it as long as the server's entry point was emitted.
 */
export function ensureBuilt(): void {
  const fresh = () => {
    const newest = newestMtime(join(ROOT, "src"));
    return ENTRIES.every((entry) => existsSync(entry) && statSync(entry).mtimeMs >= newest);
  };
  if (fresh()) return;
  const lock = join(
    tmpdir(),
    `static-deploy-build-${createHash("sha256").update(ROOT).digest("hex").slice(0, 12)}`,
  );
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another build holds the lock; a lock older than two minutes is a crashed build's.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // Gone meanwhile: try again.
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lock}`);
      sleepSync(200);
    }
  }
  try {
    if (fresh()) return;
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    if (result.status !== 0) {
      if (!ENTRIES.every((entry) => existsSync(entry)))
        throw new Error(`build failed:\n${result.stdout}${result.stderr}`);
      console.warn(`tsc reported errors; using the emitted dist/ anyway:\n${result.stdout.slice(0, 2000)}`);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
