import { existsSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { CommandContext } from "../context.js";
import { confirm } from "../confirm.js";

/** Where build tools put a built site, in the order they are suggested. */
export const OUTPUT_FOLDERS = ["dist", "build", "out", "public", "_site"] as const;

/** Why a folder looks like a project's source tree rather than its built site. */
export interface SourceSigns {
  /** What was found, as words ("a package.json", …). */
  signs: string[];
  /** The first of OUTPUT_FOLDERS beside it that holds an index.html, if any. */
  outputFolder: string | undefined;
}

/**
 * The signs that `realDir` is a project's root (a package.json, a .git, or no index.html while an
 * output folder in it has one); undefined when there are none. Costs a few stats, no walk.
 */
export function sourceSigns(realDir: string): SourceSigns | undefined {
  const outputFolder = OUTPUT_FOLDERS.find((name) => isFile(join(realDir, name, "index.html")));
  const signs: string[] = [];
  if (existsSync(join(realDir, "package.json"))) signs.push("a package.json");
  if (existsSync(join(realDir, ".git"))) signs.push("a .git (it is a repository's root)");
  if (outputFolder !== undefined && !isFile(join(realDir, "index.html"))) {
    signs.push(`no index.html, while ${outputFolder}/ has one`);
  }
  return signs.length === 0 ? undefined : { signs, outputFolder };
}

/**
 * Stops a deploy of a folder that looks like a project's source (where a bare `deploy` publishes
 * package.json, src/ and whatever secrets lie there) unless it is confirmed: by `confirmed` (the
 * --yes option, or the folder's project file recording an earlier yes), else by a question on a
 * terminal. Off a terminal the error names the option and the likely output folder. Returns true
 * when the folder looks like a source and was confirmed (worth remembering in its project file),
 * false when it does not look like one.
 */
export async function guardSourceFolder(
  ctx: CommandContext,
  realDir: string,
  confirmed: boolean,
): Promise<boolean> {
  const found = sourceSigns(realDir);
  if (found === undefined) return false;
  if (confirmed) return true;
  const why = `${realDir} looks like a project's source, not a built site: it has ${joinWords(found.signs)}`;
  const output = found.outputFolder;
  const instead =
    output === undefined
      ? "Build the site first and deploy the folder the build writes (dist/, build/, out/, …)"
      : `Its built site is likely ${join(realDir, output)}: deploy that with \`deploy ${shown(ctx.io.cwd, join(realDir, output))}\``;
  await confirm(ctx.io, {
    text: `${why}.\n${instead}.\nPublish every file of ${realDir} as it is? [y/N] `,
    notOnTerminal: {
      code: "SOURCE_FOLDER",
      message: `${why}; nothing was deployed`,
      hint: `${instead}.\nTo publish this folder as it is, run again with --yes.`,
    },
    cancelled: "deploy cancelled; nothing was deployed",
  });
  return true;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A path as typed on a command line from `cwd`: relative when inside it, else absolute. */
function shown(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel === "" || rel.startsWith("..") ? path : `./${rel}`;
}

function joinWords(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}
