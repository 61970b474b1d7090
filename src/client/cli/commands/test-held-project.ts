import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../../core/ids.js";
import { writeProjectFile } from "../../local/project-file.js";
import { SavedProjects, type SavedProject } from "../../local/saved-projects.js";
import type { PublicProject } from "../../net/api-types.js";
import { publicProject as projectFixture } from "../test-fixtures.js";

// Local state for the commands' unit tests (not built: `test-*.ts`): a site folder and a config
// folder holding a project's token, as a first deploy leaves them.

/** The install id written in every scratch config folder, and the fingerprint requests carry. */
const INSTALL_ID = "c".repeat(64);
export const FINGERPRINT = sha256Hex(INSTALL_ID);

/** A fresh temp root with a site folder and a config folder; `env` names the config folder. */
export interface Scratch {
  site: string;
  config: string;
  saved: SavedProjects;
  env: Record<string, string>;
  /** The lock files left in the config folder (none once a run has ended). */
  locksLeft(): Promise<string[]>;
  /** Takes the site folder's lock as another live run would (this process holds it). */
  lockSite(): Promise<void>;
  remove(): Promise<void>;
}

/** Makes a scratch root (real paths, as the client resolves them). */
export async function makeScratch(): Promise<Scratch> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "cli-command-")));
  const site = join(root, "site");
  const config = join(root, "config");
  await mkdir(site);
  await mkdir(config);
  await writeFile(join(config, "install.json"), `${JSON.stringify({ installId: INSTALL_ID })}\n`);
  return {
    site,
    config,
    saved: new SavedProjects(config),
    env: { DEPLOY_CONFIG_DIR: config },
    locksLeft: () => readdir(join(config, "locks")).catch(() => []),
    lockSite: async () => {
      await mkdir(join(config, "locks"));
      const holder = { pid: process.pid, startedAt: "2026-11-28T03:00:00.000Z", dir: site };
      await writeFile(join(config, "locks", `${sha256Hex(site)}.lock`), JSON.stringify(holder));
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/** A project as the API describes it (docs/contract.md §3). */
export function publicProject(projectSlug: string, overrides: Partial<PublicProject> = {}): PublicProject {
  const hostname = `${projectSlug}.sites.test`;
  return projectFixture({
    projectSlug,
    hostname,
    generatedHostname: hostname,
    productionUrl: `https://${hostname}/`,
    createdAt: "2026-11-01T09:00:00.000Z",
    expiresAt: "2026-12-01T09:00:00.000Z",
    ...overrides,
  });
}

/** What `holdProject` saved: the record and the projectHash it is kept under. */
export interface Held {
  projectHash: string;
  project: SavedProject;
}

/**
 * Saves a project's token in the config folder as a deploy of `dir` (default: the site) does,
 * and with `linked` writes the folder's project file too.
 */
export async function holdProject(
  scratch: Scratch,
  apiUrl: string,
  projectSlug: string,
  options: { linked?: boolean; dir?: string; projectHash?: string } = {},
): Promise<Held> {
  const dir = options.dir ?? scratch.site;
  const projectHash = options.projectHash ?? sha256Hex(dir);
  const project: SavedProject = {
    projectSlug,
    apiToken: `sdp_token_${projectSlug}`,
    apiUrl,
    dir,
    productionUrl: `https://${projectSlug}.sites.test/`,
    createdAt: "2026-11-01T09:00:00.000Z",
  };
  await scratch.saved.put(projectHash, project);
  if (options.linked === true) await writeProjectFile(dir, { project: projectSlug, apiUrl });
  return { projectHash, project };
}
