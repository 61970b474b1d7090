import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { CliError } from "../errors.js";

/**
 * The rules of one `.gitignore`: those of a folder inside the site apply to the paths under
 * `base`; those of a folder above the site (inside the same repository) see the site's paths
 * under `outside`, the site's own path relative to that folder.
 */
export interface GitignoreLayer {
  base: string;
  outside: string;
  rules: Ignore;
}

/** The name git reads its ignore rules from, in every folder. */
export const GITIGNORE = ".gitignore";

/**
 * The repository `dir` is in: the nearest folder, `dir` itself or above it, that holds a `.git`
 * (a folder, or a file in a worktree or submodule); undefined outside any repository.
 */
export function repositoryRoot(dir: string): string | undefined {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, ".git"))) return current;
    if (dirname(current) === current) return undefined;
  }
}

/**
 * The `.gitignore` rules of the folders above `root` up to its repository's root (none outside a
 * repository), outermost first. A line that ignores `root` itself (a repository's `dist/` line)
 * says only that the site is build output, nothing of which of its files to publish: it is left
 * out, and the file's other lines (`.env`, `*.map`) apply.
 */
export function parentLayers(root: string): GitignoreLayer[] {
  const repo = repositoryRoot(root);
  if (repo === undefined || repo === root) return [];
  const layers: GitignoreLayer[] = [];
  for (let folder = dirname(root); ; folder = dirname(folder)) {
    const text = readGitignore(join(folder, GITIGNORE));
    if (text !== undefined) {
      const outside = `${relative(folder, root).split(sep).join("/")}/`;
      const lines = text.split(/\r?\n/).filter((line) => !ignore().add(line).ignores(outside));
      layers.unshift({ base: "", outside, rules: ignore().add(lines) });
    }
    if (folder === repo || dirname(folder) === folder) break;
  }
  return layers;
}

/** The layer of a `.gitignore` found in the site's folder `base` (`""` at the top, else `sub/`). */
export function siteLayer(absPath: string, base: string): GitignoreLayer | undefined {
  const text = readGitignore(absPath);
  return text === undefined ? undefined : { base, outside: "", rules: ignore().add(text) };
}

/**
 * True when the layers ignore `path` (a folder ends in `/`): the deepest layer with a rule for it
 * decides, as in git, where a deeper file's `!rule` brings back what a higher one ignored.
 */
export function gitignored(layers: readonly GitignoreLayer[], path: string): boolean {
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i]!;
    const result = layer.rules.test(layer.outside + path.slice(layer.base.length));
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

function readGitignore(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return undefined;
    throw new CliError("IGNORE_FILE", `cannot read ${path}: ${(error as Error).message}`);
  }
}
