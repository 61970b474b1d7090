import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ENTRY = join(ROOT, "dist/client/cli.js");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Compiles the project (`tsc -p tsconfig.build.json`) unless dist/ is newer than src/. Type errors
 * elsewhere do not stop it as long as the client's entry point was emitted.
 */
export function ensureBuilt(): void {
  if (existsSync(ENTRY) && statSync(ENTRY).mtimeMs >= newestMtime(join(ROOT, "src"))) return;
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (result.status !== 0) {
    if (!existsSync(ENTRY)) throw new Error(`build failed:\n${result.stdout}${result.stderr}`);
    console.warn(`tsc reported errors; using the emitted dist/ anyway:\n${result.stdout.slice(0, 2000)}`);
  }
}
