import { realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import { sep } from "node:path";
import type { GitignoreLayer } from "./gitignore.js";
import { skips, statOf, type WalkState } from "./walk-state.js";

// A folder's symbolic links, resolved before its entries are ordered, and that order.

/**
 * A folder's entries in the order of their paths: a folder's name as if followed by `/`, whatever
 * it is compared with (`a-b/` sorts before `a/`: `-` is below `/`). The keys are made once.
 */
export function inPathOrder(entries: readonly Dirent[], isFolder: (entry: Dirent) => boolean): Dirent[] {
  const keyed = entries.map((entry) => ({ entry, key: isFolder(entry) ? `${entry.name}/` : entry.name }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map(({ entry }) => entry);
}

/** A link that stays inside the site: its real target and the target's stat. */
export interface Link {
  real: string;
  info: Stats;
  folder: boolean;
}

/**
 * The folder's symbolic links that stay inside the site, by name, with their targets' stats
 * (before the entries are ordered: a link to a folder sorts as one); undefined when it has none.
 */
export function resolveLinks(
  state: WalkState,
  entries: readonly Dirent[],
  base: string,
  prefix: string,
  layers: readonly GitignoreLayer[],
  top: boolean,
): Map<string, Link> | undefined {
  let links: Map<string, Link> | undefined;
  for (const entry of entries) {
    if (!entry.isSymbolicLink()) continue;
    const rel = prefix + entry.name;
    const real = followLink(state, base + entry.name, rel, layers, entry.name, top);
    if (real === undefined) continue;
    const info = statOf(real, rel, (path) => statSync(path));
    (links ??= new Map()).set(entry.name, { real, info, folder: info.isDirectory() });
  }
  return links;
}

/** The real target of a link inside the folder, or undefined after recording why it is refused. */
function followLink(
  state: WalkState,
  abs: string,
  rel: string,
  layers: readonly GitignoreLayer[],
  name: string,
  top: boolean,
): string | undefined {
  if (state.rules.ignores(`${rel}/`) || skips(state, rel, layers, name, top)) return undefined;
  let target: string;
  try {
    target = realpathSync.native(abs);
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
