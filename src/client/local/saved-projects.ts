import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "../../core/ids.js";
import { createPrivateFile, invalidConfigFile, readJsonFile, writePrivateFile } from "./config-dir.js";
import { CliError } from "../errors.js";

/** What the client keeps of a project it created: enough to act on it again. */
export interface SavedProject {
  projectSlug: string;
  apiToken: string;
  apiUrl: string;
  dir: string;
  productionUrl: string;
  createdAt: string;
}

/** A saved project with the projectHash it was created with: the identity its requests carry. */
export interface HeldProject {
  projectHash: string;
  project: SavedProject;
}

/** Most saved projects read to list them or find one by name: far more than a person keeps. */
const MAX_LISTED = 10_000;

/** One saved project's file: the projectHash, and the project under `record` (the key files on disk have). */
interface SavedProjectFile {
  version: 1;
  projectHash: string;
  record: SavedProject;
}

/**
 * Project tokens in the config folder, one file per API URL and project
 * (`projects/<sha256>.json`, mode 0600), each replaced atomically: runs at once on different
 * projects never write the same file, so none loses another's token. Each file keeps the
 * projectHash the project was created with (its identity) and the folder it deploys from here.
 * Earlier versions keyed the files by API URL and the folder's projectHash: such files are read
 * as they are and replaced by a file of the project's own on its next write. The shared
 * `projects.json` of older versions still is moved into files on first use.
 */
export class SavedProjects {
  private readonly folder: string;
  private readonly legacyPath: string;
  private migration: Promise<void> | undefined;

  constructor(configDir: string) {
    this.folder = join(configDir, "projects");
    this.legacyPath = join(configDir, "projects.json");
  }

  /** The saved project of that name on an API, with its identity; undefined when none is held. */
  async findBySlug(apiUrl: string, projectSlug: string): Promise<HeldProject | undefined> {
    await this.migrate();
    const path = this.pathOf(apiUrl, `project ${projectSlug}`);
    const own = await readRecord(path);
    if (own !== undefined) return own;
    return (await this.list()).find(
      ({ project }) => project.apiUrl === apiUrl && project.projectSlug === projectSlug,
    );
  }

  /**
   * The saved project a folder (its real path) deploys to on an API when no project file names
   * one: the newest record made or last deployed from that folder and not unlinked from it.
   */
  async findByDir(apiUrl: string, realDir: string): Promise<HeldProject | undefined> {
    const matches = (await this.list()).filter(
      ({ project }) => project.apiUrl === apiUrl && project.dir === realDir,
    );
    return matches.sort((a, b) => (a.project.createdAt < b.project.createdAt ? 1 : -1))[0];
  }

  /** Saves (or replaces) a project, under the projectHash it was created with. */
  async put(projectHash: string, project: SavedProject): Promise<void> {
    await this.migrate();
    const path = this.pathOf(project.apiUrl, `project ${project.projectSlug}`);
    // A file that does not parse is named, not replaced: it may be the only copy of a token.
    await readJsonFile(path);
    await writePrivateFile(path, fileText(projectHash, project));
    await this.dropLegacyCopies(project.apiUrl, project.projectSlug, path);
  }

  /** Forgets a project on an API: its file, and an earlier version's file of it. */
  async remove(apiUrl: string, projectSlug: string): Promise<void> {
    await this.migrate();
    const path = this.pathOf(apiUrl, `project ${projectSlug}`);
    await removeFile(path);
    await this.dropLegacyCopies(apiUrl, projectSlug, path);
  }

  /**
   * Every saved project (at most MAX_LISTED), with its identity, sorted by API and slug; a file
   * that does not parse is left out (it is named when its project is written).
   */
  async list(): Promise<HeldProject[]> {
    await this.migrate();
    const held = (await this.listFiles()).map(({ projectHash, project }) => ({ projectHash, project }));
    const key = (entry: HeldProject) => `${entry.project.apiUrl} ${entry.project.projectSlug}`;
    return held.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }

  private async listFiles(): Promise<Array<HeldProject & { path: string }>> {
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw new CliError("CONFIG", `cannot read ${this.folder}: ${(error as Error).message}`);
    }
    const held: Array<HeldProject & { path: string }> = [];
    for (const name of names.filter((file) => /^[0-9a-f]{64}\.json$/.test(file)).slice(0, MAX_LISTED)) {
      const path = join(this.folder, name);
      const record = await readRecord(path).catch(() => undefined);
      if (record !== undefined) held.push({ ...record, path });
    }
    return held;
  }

  /** Removes the files of earlier versions (keyed by a folder) that hold this project. */
  private async dropLegacyCopies(apiUrl: string, projectSlug: string, keep: string): Promise<void> {
    for (const file of await this.listFiles()) {
      const { project } = file;
      if (file.path !== keep && project.apiUrl === apiUrl && project.projectSlug === projectSlug) {
        await removeFile(file.path);
      }
    }
  }

  /** A record's file: by API URL and `project <slug>` now, by API URL and a folder's projectHash before. */
  private pathOf(apiUrl: string, key: string): string {
    return join(this.folder, `${sha256Hex(`${apiUrl} ${key}`)}.json`);
  }

  private migrate(): Promise<void> {
    this.migration ??= this.migrateLegacy();
    return this.migration;
  }

  /** Moves the projects of `projects.json` to their own files, keeping any newer file, then drops it. */
  private async migrateLegacy(): Promise<void> {
    const data = await readJsonFile(this.legacyPath);
    if (data === undefined) return;
    const projects = (data as { projects?: unknown } | null)?.projects;
    if (typeof projects !== "object" || projects === null) {
      throw invalidConfigFile(this.legacyPath, "is not a projects file");
    }
    for (const [key, project] of Object.entries(projects)) {
      const projectHash = key.slice(key.lastIndexOf(" ") + 1);
      if (!isSavedProject(project) || key !== `${project.apiUrl} ${projectHash}`) {
        throw invalidConfigFile(this.legacyPath, `holds a malformed record under "${key}"`);
      }
      // Exclusive: a file another run already wrote is newer than this copy.
      const path = this.pathOf(project.apiUrl, `project ${project.projectSlug}`);
      await createPrivateFile(path, fileText(projectHash, project));
    }
    await rm(this.legacyPath, { force: true });
  }
}

/** The record in a file, undefined when there is none; CONFIG_INVALID when it is not a record. */
async function readRecord(path: string): Promise<HeldProject | undefined> {
  const data = await readJsonFile(path);
  if (data === undefined) return undefined;
  const file = data as Partial<SavedProjectFile> | null;
  if (file?.version !== 1 || typeof file.projectHash !== "string" || !isSavedProject(file.record)) {
    throw invalidConfigFile(path, "is not a project record");
  }
  return { projectHash: file.projectHash, project: file.record };
}

async function removeFile(path: string): Promise<void> {
  try {
    await rm(path, { force: true });
  } catch (error) {
    throw new CliError("CONFIG", `cannot remove ${path}: ${(error as Error).message}`);
  }
}

function fileText(projectHash: string, project: SavedProject): string {
  const file: SavedProjectFile = { version: 1, projectHash, record: project };
  return `${JSON.stringify(file, null, 2)}\n`;
}

function isSavedProject(value: unknown): value is SavedProject {
  if (typeof value !== "object" || value === null) return false;
  const fields = value as Record<string, unknown>;
  return ["projectSlug", "apiToken", "apiUrl", "dir", "productionUrl", "createdAt"].every(
    (name) => typeof fields[name] === "string",
  );
}
