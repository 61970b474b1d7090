import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { CliError } from "./errors.js";

/** One file of the site: its path inside the site (`/` separators, no leading `/`) and its stat. */
export interface SiteFile {
  path: string;
  absPath: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

/** Always skipped, wherever they are; `.deployignore` itself is skipped at the top. */
export const DEFAULT_IGNORES = [".git", "node_modules", ".DS_Store", "/.deployignore"];
/** The ignore file read at the top of the folder. */
export const IGNORE_FILE = ".deployignore";

interface WalkState {
  root: string;
  rules: Ignore;
  files: SiteFile[];
  problems: string[];
}

/**
 * Lists the files of a site folder (given as its real path), sorted by path. Skips the default
 * ignores and what `.deployignore` names; follows symbolic links that stay inside the folder and
 * refuses, naming them, those that leave it, dangle or loop.
 */
export async function walkSite(root: string): Promise<SiteFile[]> {
  const state: WalkState = { root, rules: await loadRules(root), files: [], problems: [] };
  await visitDir(state, root, "", [root]);
  if (state.problems.length > 0) {
    const shown = state.problems.slice(0, 20).map((line) => `  ${line}`);
    if (state.problems.length > 20) shown.push(`  … and ${state.problems.length - 20} more`);
    throw new CliError(
      "BAD_SYMLINK",
      `cannot deploy ${root}: symbolic links that do not stay inside the folder:\n${shown.join("\n")}`,
      "Copy the files into the folder, or name the links in .deployignore.",
    );
  }
  return state.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function loadRules(root: string): Promise<Ignore> {
  const rules = ignore().add(DEFAULT_IGNORES);
  try {
    rules.add(await readFile(join(root, IGNORE_FILE), "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new CliError(
        "IGNORE_FILE",
        `cannot read ${join(root, IGNORE_FILE)}: ${(error as Error).message}`,
      );
    }
  }
  return rules;
}

async function visitDir(state: WalkState, dir: string, prefix: string, chain: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    throw unreadable(prefix === "" ? "." : prefix, error);
  });
  const subdirs: Array<{ abs: string; rel: string; real: string }> = [];
  await Promise.all(
    entries.map(async (entry) => {
      const abs = join(dir, entry.name);
      const rel = prefix + entry.name;
      let real = abs;
      if (entry.isSymbolicLink()) {
        const target = await followLink(state, abs, rel);
        if (target === undefined) return;
        real = target;
      }
      const info = await stat(real).catch((error: unknown) => {
        throw unreadable(rel, error);
      });
      if (info.isDirectory()) {
        if (state.rules.ignores(`${rel}/`)) return;
        if (chain.includes(real)) {
          state.problems.push(
            `${rel} → ${relative(state.root, real) || "."} (a loop: it points to a folder above it)`,
          );
          return;
        }
        subdirs.push({ abs, rel, real });
      } else if (info.isFile() && !state.rules.ignores(rel)) {
        state.files.push({ path: rel, absPath: abs, size: info.size, mtimeMs: info.mtimeMs, ino: info.ino });
      }
    }),
  );
  for (const sub of subdirs) await visitDir(state, sub.abs, `${sub.rel}/`, [...chain, sub.real]);
}

/** The real target of a link inside the folder, or undefined after recording why it is refused. */
async function followLink(state: WalkState, abs: string, rel: string): Promise<string | undefined> {
  if (state.rules.ignores(rel) || state.rules.ignores(`${rel}/`)) return undefined;
  let target: string;
  try {
    target = await realpath(abs);
  } catch {
    state.problems.push(`${rel} (its target does not exist)`);
    return undefined;
  }
  if (target !== state.root && !target.startsWith(state.root + sep)) {
    state.problems.push(`${rel} → ${target} (outside the folder)`);
    return undefined;
  }
  return target;
}

function unreadable(path: string, error: unknown): CliError {
  return new CliError(
    "READ_FAILED",
    `cannot read ${path}: ${(error as Error).message}`,
    "Check its permissions.",
  );
}
