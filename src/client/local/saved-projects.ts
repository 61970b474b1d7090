import { rm } from "node:fs/promises";
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

/** One saved project's file: the projectHash, and the project under `record` (the key files on disk have). */
interface SavedProjectFile {
  version: 1;
  projectHash: string;
  record: SavedProject;
}

/**
 * Project tokens in the config folder, one file per API URL and projectHash
 * (`projects/<sha256>.json`, mode 0600), each replaced atomically: runs at once on different
 * folders never write the same file, so none loses another's token. The shared `projects.json`
 * of earlier versions is moved into such files on first use.
 */
export class SavedProjects {
  private readonly folder: string;
  private readonly legacyPath: string;
  private migration: Promise<void> | undefined;

  constructor(configDir: string) {
    this.folder = join(configDir, "projects");
    this.legacyPath = join(configDir, "projects.json");
  }

  /** The saved project of a folder on an API, if the client holds one. */
  async get(apiUrl: string, projectHash: string): Promise<SavedProject | undefined> {
    await this.migrate();
    const path = this.pathOf(apiUrl, projectHash);
    const data = await readJsonFile(path);
    if (data === undefined) return undefined;
    const file = data as Partial<SavedProjectFile> | null;
    if (file?.version !== 1 || !isSavedProject(file.record))
      throw invalidConfigFile(path, "is not a project record");
    return file.record;
  }

  /** Saves (or replaces) the project of a folder on an API. */
  async put(projectHash: string, project: SavedProject): Promise<void> {
    await this.migrate();
    const path = this.pathOf(project.apiUrl, projectHash);
    // A file that does not parse is named, not replaced: it may be the only copy of a token.
    await readJsonFile(path);
    await writePrivateFile(path, fileText(projectHash, project));
  }

  /** Forgets the saved project of a folder on an API. */
  async remove(apiUrl: string, projectHash: string): Promise<void> {
    await this.migrate();
    const path = this.pathOf(apiUrl, projectHash);
    try {
      await rm(path, { force: true });
    } catch (error) {
      throw new CliError("CONFIG", `cannot remove ${path}: ${(error as Error).message}`);
    }
  }

  private pathOf(apiUrl: string, projectHash: string): string {
    return join(this.folder, `${sha256Hex(`${apiUrl} ${projectHash}`)}.json`);
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
      await createPrivateFile(this.pathOf(project.apiUrl, projectHash), fileText(projectHash, project));
    }
    await rm(this.legacyPath, { force: true });
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
