/** What `walkSite` asks of a set of ignore rules. */
export interface SkipRules {
  /** True when `path` (a folder ends in `/`) or a folder above it is skipped. */
  ignores(path: string): boolean;
  /**
   * The same decision for an entry of a folder the walk kept (so were all folders above it):
   * only its own `name` is looked at, at the top of the site or not, as a folder or a file.
   */
  ignoresEntry?(name: string, top: boolean, isFolder: boolean): boolean;
}

/** Names skipped wherever they are (`.git`, `node_modules`, `.DS_Store`), lowercased. */
const ANYWHERE = new Set([".git", "node_modules", ".ds_store"]);
/** Names skipped at the top only: the ignore file and the project file (local/project-file.ts). */
const TOP_ONLY = new Set([".deployignore", ".static-deploy.json"]);

/**
 * The default rules of walk.ts (and, unless `includeDotfiles`, its dotfile rules) without an
 * ignore file, as plain comparisons. They decide exactly as `ignore` does with those rules (its
 * default, case-insensitive matching included: default-rules.test.ts compares the two), at a
 * fraction of its cost per path: the `ignore` package took 60 ms of a 50,000-file walk.
 */
export function defaultRules(includeDotfiles: boolean): SkipRules {
  return {
    ignores(path) {
      const segments = path.split("/");
      const folder = segments[segments.length - 1] === "";
      if (folder) segments.pop();
      return segments.some((segment, i) =>
        skipsName(segment.toLowerCase(), i === 0, folder || i < segments.length - 1, includeDotfiles),
      );
    },
    // The walk's way: one name a call, where `ignores` splits and lowercases the whole path again
    // for folders decided already (a cold pass over 50,000 paths three folders deep: 104 ms, 13 this way).
    ignoresEntry(name, top, isFolder) {
      return skipsName(name.toLowerCase(), top, isFolder, includeDotfiles);
    },
  };
}

function skipsName(name: string, top: boolean, isFolder: boolean, includeDotfiles: boolean): boolean {
  if (ANYWHERE.has(name) || (top && TOP_ONLY.has(name))) return true;
  if (includeDotfiles || !name.startsWith(".")) return false;
  // `.well-known/` at the top is public by definition (RFC 8615): only the folder, not a file so named.
  return !(top && isFolder && name === ".well-known");
}
