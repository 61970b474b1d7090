import { join } from "node:path";
import { readJsonFile, writePrivateFile } from "./config-dir.js";

/** What the client keeps of a project it created: enough to act on it again. */
export interface ProjectRecord {
  projectSlug: string;
  apiToken: string;
  apiUrl: string;
  dir: string;
  productionUrl: string;
  createdAt: string;
}

interface ProjectsFile {
  version: 1;
  projects: Record<string, ProjectRecord>;
}

/** Project tokens in `projects.json` of the config folder (mode 0600), keyed by API URL and projectHash. */
export class ProjectStore {
  private readonly path: string;

  constructor(configDir: string) {
    this.path = join(configDir, "projects.json");
  }

  /** The record of a folder on an API, if the client holds one. */
  async get(apiUrl: string, projectHash: string): Promise<ProjectRecord | undefined> {
    return (await this.load()).projects[key(apiUrl, projectHash)];
  }

  /** Saves (or replaces) the record of a folder on an API. */
  async put(projectHash: string, record: ProjectRecord): Promise<void> {
    const file = await this.load();
    file.projects[key(record.apiUrl, projectHash)] = record;
    await this.save(file);
  }

  /** Forgets the record of a folder on an API. */
  async remove(apiUrl: string, projectHash: string): Promise<void> {
    const file = await this.load();
    delete file.projects[key(apiUrl, projectHash)];
    await this.save(file);
  }

  private async load(): Promise<ProjectsFile> {
    const data = (await readJsonFile(this.path)) as Partial<ProjectsFile> | undefined;
    const projects = data?.projects;
    if (data?.version !== 1 || typeof projects !== "object" || projects === null) {
      return { version: 1, projects: {} };
    }
    return { version: 1, projects: { ...projects } };
  }

  private async save(file: ProjectsFile): Promise<void> {
    await writePrivateFile(this.path, `${JSON.stringify(file, null, 2)}\n`);
  }
}

function key(apiUrl: string, projectHash: string): string {
  return `${apiUrl} ${projectHash}`;
}
