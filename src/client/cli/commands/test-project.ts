import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { sha256Hex } from "../../../core/ids.js";
import { encodeCredential } from "../../local/credential.js";
import { writeProjectFile } from "../../local/project-file.js";
import { SavedProjects, type SavedProject } from "../../local/saved-projects.js";
import { SLUG } from "../test-fixtures.js";

// Local state for the commands' unit tests (not built: `test-*.ts`): a site folder and a config
// folder, and a project held in them as a first deploy leaves it (its token saved, its project
// file written). What the API answers about a project comes from ../test-fixtures.ts.

/** The token a first deploy of `slug` was given (each project its own, so a test sees which is sent). */
const tokenOf = (slug: string) => `sdp_${slug}_token`;

/** The token of project SLUG. */
export const TOKEN = tokenOf(SLUG);

/** The install id a deploy leaves in the config folder, and the fingerprint requests carry (its SHA-256). */
const INSTALL_ID = "c".repeat(64);
const FINGERPRINT = sha256Hex(INSTALL_ID);

/** A site folder and a config folder (real paths, as the client resolves them); `env` names them. */
export interface Scratch {
  site: string;
  config: string;
  saved: SavedProjects;
  env: Record<string, string>;
}

/** The scratch folders of one test file, under one root it removes after its tests. */
export interface ScratchRoot {
  /** The root (a real path: macOS's tmpdir is a symlink); made before the file's tests. */
  readonly path: string;
  /** A new empty site folder and a config folder not yet made; `apiUrl` is the API the env names. */
  scratch(apiUrl?: string): Promise<Scratch>;
}

/** The scratch root of one test file, named `prefix…` in the temp folder. */
export function useScratchRoot(prefix: string): ScratchRoot {
  let path = "";
  beforeAll(async () => {
    path = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  });
  afterAll(() => rm(path, { recursive: true, force: true }));
  return {
    get path() {
      return path;
    },
    async scratch(apiUrl) {
      const base = await mkdtemp(join(path, "case-"));
      const site = join(base, "site");
      const config = join(base, "config");
      await mkdir(site);
      const env: Record<string, string> = { DEPLOY_CONFIG_DIR: config };
      if (apiUrl !== undefined) env.DEPLOY_API_URL = apiUrl;
      return { site, config, saved: new SavedProjects(config), env };
    },
  };
}

/** A saved project as a first deploy writes it: SLUG with its token, in no folder unless told. */
export function savedProject(apiUrl: string, fields: Partial<SavedProject> = {}): SavedProject {
  const slug = fields.projectSlug ?? SLUG;
  return {
    projectSlug: slug,
    apiToken: tokenOf(slug),
    apiUrl,
    dir: "",
    productionUrl: `https://${slug}.sites.test/`,
    createdAt: "2026-11-01T09:00:00.000Z",
    ...fields,
  };
}

/** The identity fields a held project's requests carry. */
export interface SentIdentity {
  projectHash: string;
  anonFingerprint: string;
}

/** What `holdProject` saved, and the identity its requests carry. */
export interface Held {
  identity: SentIdentity;
  project: SavedProject;
}

/**
 * Holds project `slug` on `apiUrl` as a first deploy of `dir` (default: the site) leaves it: the
 * install id and the project's token saved in the config folder, under the folder's projectHash
 * (or the one given, as for a folder moved since); with `linked`, the folder's project file too.
 */
export async function holdProject(
  scratch: Scratch,
  apiUrl: string,
  slug: string,
  options: { linked?: boolean; dir?: string; projectHash?: string } = {},
): Promise<Held> {
  const dir = options.dir ?? scratch.site;
  const projectHash = options.projectHash ?? sha256Hex(dir);
  const project = savedProject(apiUrl, { projectSlug: slug, dir });
  await mkdir(scratch.config, { recursive: true });
  await writeFile(join(scratch.config, "install.json"), `${JSON.stringify({ installId: INSTALL_ID })}\n`);
  await scratch.saved.put(projectHash, project);
  if (options.linked === true) await writeProjectFile(dir, { project: slug, apiUrl });
  return { identity: { projectHash, anonFingerprint: FINGERPRINT }, project };
}

/** The identity a DEPLOY_CREDENTIAL of `credentialEnv` carries (not this machine's). */
export const CREDENTIAL_IDENTITY: SentIdentity = {
  projectHash: "a".repeat(64),
  anonFingerprint: "b".repeat(64),
};

/** DEPLOY_CREDENTIAL for project `slug` on `apiUrl` with `token`, and CREDENTIAL_IDENTITY. */
export function credentialEnv(apiUrl: string, slug = SLUG, token = TOKEN): Record<string, string> {
  return {
    DEPLOY_CREDENTIAL: encodeCredential({
      apiUrl,
      projectSlug: slug,
      apiToken: token,
      ...CREDENTIAL_IDENTITY,
    }),
  };
}

/** Takes the site folder's lock as another live run would (this process holds it; nothing lets it go). */
export async function lockSite({ site, config }: Scratch): Promise<void> {
  await mkdir(join(config, "locks"), { recursive: true });
  const holder = { pid: process.pid, startedAt: "2026-11-28T03:00:00.000Z", dir: site };
  await writeFile(join(config, "locks", `${sha256Hex(site)}.lock`), JSON.stringify(holder));
}

/** The lock files left in a config folder (a run that ended must leave none). */
export async function locksLeft({ config }: Scratch): Promise<string[]> {
  return readdir(join(config, "locks")).catch(() => []);
}
