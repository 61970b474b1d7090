import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
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
 * Compiles dist/ (`npm run build`: esbuild, file by file, about a second) unless both entry points
 * are newer than every file of src/. Test files running in parallel take turns through a lock
 * directory, so one builds and the others find dist/ fresh. Type errors do not stop it (the type
 * check is `npm run check`'s), so work in progress elsewhere in src/ never blocks a test.
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
    const result = spawnSync(process.execPath, [join(ROOT, "scripts/build.mjs")], {
      cwd: ROOT,
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`build failed:\n${result.stdout}${result.stderr}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
