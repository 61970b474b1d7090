import type { Ignore } from "ignore";
import { CliError } from "../errors.js";
import type { SkipRules } from "./default-rules.js";
import type { FileStat } from "./file-stat.js";
import { gitignored, type GitignoreLayer } from "./gitignore.js";

// What a walk of a site folder (walk.ts) carries from folder to folder, and its small steps.

/** One file of the site: its path inside the site (`/` separators, no leading `/`) and its stat. */
export interface SiteFile {
  path: string;
  absPath: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

/** A walk in progress: its rules, what it found and what it skipped. */
export interface WalkState {
  root: string;
  rules: SkipRules;
  /** The same rules without the dotfile ones: what is skipped by these only is a skipped dotfile. */
  withoutDotfiles: SkipRules;
  skippedDotfiles: string[];
  /** `.deployignore`'s rules alone, when it has any: a `!` rule there beats a `.gitignore`. */
  user: Ignore | undefined;
  skippedGitignored: string[];
  files: SiteFile[];
  problems: string[];
  /** The walk runs in the site folder (inFolder): lists and stats by paths relative to it. */
  relative?: boolean;
}

/**
 * True when the rules skip `path`, the entry `name` of a kept folder (`top`: of the site's own);
 * notes it when only the dotfile rules, or a `.gitignore`, do.
 */
export function skips(
  state: WalkState,
  path: string,
  layers: readonly GitignoreLayer[],
  name: string,
  top: boolean,
): boolean {
  const { rules } = state;
  const skipped = rules.ignoresEntry
    ? rules.ignoresEntry(name, top, path.endsWith("/"))
    : rules.ignores(path);
  if (!skipped) {
    if (layers.length === 0 || state.user?.test(path).unignored === true) return false;
    if (!gitignored(layers, path)) return false;
    state.skippedGitignored.push(path);
    return true;
  }
  if (state.rules !== state.withoutDotfiles && !state.withoutDotfiles.ignores(path)) {
    state.skippedDotfiles.push(path);
  }
  return true;
}

/** The stat of `path` by `how`; a failure is READ_FAILED naming `rel`. */
export function statOf<T>(path: string, rel: string, how: (path: string) => T): T {
  try {
    return how(path);
  } catch (error) {
    throw unreadable(rel, error);
  }
}

/** Records a file the walk keeps. */
export function addFile(state: WalkState, rel: string, abs: string, info: FileStat): void {
  state.files.push({ path: rel, absPath: abs, size: info.size, mtimeMs: info.mtimeMs, ino: info.ino });
}

/** READ_FAILED for `path`, with the system's reason. */
export function unreadable(path: string, error: unknown): CliError {
  return new CliError(
    "READ_FAILED",
    `cannot read ${path}: ${(error as Error).message}`,
    "Check its permissions.",
  );
}
