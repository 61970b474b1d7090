import { randomBytes } from "node:crypto";
import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { isProjectSlug } from "../../core/formats.js";
import { CliError } from "../errors.js";
import { repositoryRoot } from "../scan/gitignore.js";

/** The project file's name: in the deployed folder, or in its repository's root. Never deployed. */
export const PROJECT_FILE = ".static-deploy.json";
/** A project file is a few lines; anything larger is not one. */
const MAX_BYTES = 16 * 1024;

/** What a project file says: which project, on which API, for which folder. No secret. */
export interface ProjectLink {
  project: string;
  apiUrl: string;
  /** The folder it names, relative to the file's own folder (`.` for that folder). */
  dir: string;
  /** A person confirmed publishing this folder as it is, though it looks like a project's source. */
  publishAsIs?: true;
}

/** A project file that names a given folder. */
export interface FoundProjectFile {
  path: string;
  link: ProjectLink;
}

const COMMENT =
  "Names the project `deploy` publishes this folder to. It holds no secret (the token stays in the config folder of the machine that created the project): commit it, and moves and clones keep the project.";

/** The files that could name `realDir`: its own, then its repository root's. */
function candidates(realDir: string): string[] {
  const repo = repositoryRoot(realDir);
  const paths = [join(realDir, PROJECT_FILE)];
  if (repo !== undefined && repo !== realDir) paths.push(join(repo, PROJECT_FILE));
  return paths;
}

/**
 * The project file that names `realDir` (a real path): the one in the folder, else the one in its
 * repository's root if it names this folder; undefined when none does. A file that is there but is
 * not a project file is a CONFIG_INVALID error naming it.
 */
export async function findProjectFile(realDir: string): Promise<FoundProjectFile | undefined> {
  for (const path of candidates(realDir)) {
    const link = await readProjectFile(path);
    if (link !== undefined && resolve(dirname(path), link.dir) === realDir) return { path, link };
  }
  return undefined;
}

/**
 * Writes the project file that names `realDir`: over the one that names it already, else in its
 * repository's root (beside the build that makes the folder, kept across clean builds) when that
 * root has none, else in the folder. Returns the file's path.
 */
export async function writeProjectFile(realDir: string, link: Omit<ProjectLink, "dir">): Promise<string> {
  const existing = await findProjectFile(realDir);
  let path = existing?.path;
  if (path === undefined) {
    const [own, rootFile] = candidates(realDir);
    path = rootFile !== undefined && !(await exists(rootFile)) ? rootFile : own!;
  }
  const dir = relative(dirname(path), realDir).split(sep).join("/") || ".";
  const { project, apiUrl, publishAsIs } = link;
  const content = { $comment: COMMENT, project, apiUrl, dir, ...(publishAsIs ? { publishAsIs } : {}) };
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { flag: "wx" });
    await rename(temporary, path);
  } catch (error) {
    // The clean-up fails too where the write could not begin (a path through a file: ENOTDIR);
    // the write's failure is the one to tell.
    await rm(temporary, { force: true }).catch(() => undefined);
    throw new CliError("PROJECT_FILE", `cannot write ${path}: ${(error as Error).message}`);
  }
  return path;
}

/** Removes a project file. */
export async function removeProjectFile(found: FoundProjectFile): Promise<void> {
  try {
    await rm(found.path, { force: true });
  } catch (error) {
    throw new CliError("PROJECT_FILE", `cannot remove ${found.path}: ${(error as Error).message}`);
  }
}

async function readProjectFile(path: string): Promise<ProjectLink | undefined> {
  let text: string;
  try {
    if ((await stat(path)).size > MAX_BYTES)
      throw invalidConfigFile(path, "is too large to be a project file");
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    if (error instanceof CliError) throw error;
    throw new CliError("PROJECT_FILE", `cannot read ${path}: ${(error as Error).message}`);
  }
  let data: Partial<Record<keyof ProjectLink, unknown>> | null;
  try {
    data = JSON.parse(text) as Partial<Record<keyof ProjectLink, unknown>> | null;
  } catch {
    throw invalidConfigFile(path, "is not valid JSON");
  }
  const { project, apiUrl, dir, publishAsIs } = data ?? {};
  if (typeof project !== "string" || !isProjectSlug(project)) throw notProjectFile(path, "project");
  if (typeof apiUrl !== "string" || !/^https?:\/\//.test(apiUrl)) throw notProjectFile(path, "apiUrl");
  if (typeof dir !== "string" || dir === "") throw notProjectFile(path, "dir");
  return { project, apiUrl, dir, ...(publishAsIs === true ? { publishAsIs } : {}) };
}

function invalidConfigFile(path: string, problem: string): CliError {
  return new CliError(
    "CONFIG_INVALID",
    `${path} ${problem}`,
    "Repair it, or remove it: it holds no secret, and `deploy link <project>` writes it again.",
  );
}

function notProjectFile(path: string, field: string): CliError {
  return invalidConfigFile(path, `is not a project file (its "${field}" is missing or malformed)`);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
