import { mkdir, mkdtemp, readdir, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PublicProject, ProjectState, RevisionSummary } from "../../net/api-types.js";
import { encodeCredential } from "../../local/credential.js";
import { anonFingerprint, projectHashOf } from "../../local/identity.js";
import { writeProjectFile } from "../../local/project-file.js";
import { SavedProjects, type SavedProject } from "../../local/saved-projects.js";

// Projects, answers and folders for the commands' unit tests (not built: `test-*.ts`).

/** The project the tests act on, and its token. */
export const SLUG = "calm-river-abc12";
export const TOKEN = "sdp_calm_river_token";

/** A fresh site folder and config folder (real paths) under `root`, and the env that names them. */
export interface Scratch {
  site: string;
  config: string;
  env: Record<string, string>;
}

/** A scratch root for one test file (a real path: macOS's tmpdir is a symlink). */
export async function scratchRoot(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

/** A new site folder and config folder under `root`, the API at `apiUrl`. */
export async function scratch(root: string, apiUrl: string): Promise<Scratch> {
  const base = await mkdtemp(join(root, "case-"));
  const site = join(base, "site");
  const config = join(base, "config");
  await mkdir(site);
  return { site, config, env: { DEPLOY_CONFIG_DIR: config, DEPLOY_API_URL: apiUrl } };
}

/** The identity fields a linked folder's requests carry. */
export interface SentIdentity {
  projectHash: string;
  anonFingerprint: string;
}

/**
 * Makes `site` a deployed folder of project `slug` on `apiUrl`, as a deploy leaves it: its token
 * saved in the config folder and its project file written. Returns the identity its requests carry.
 */
export async function linkSite(
  { site, config }: Scratch,
  apiUrl: string,
  fields: Partial<SavedProject> = {},
): Promise<SentIdentity> {
  const project = savedProject(apiUrl, { dir: site, ...fields });
  const projectHash = projectHashOf(site);
  await new SavedProjects(config).put(projectHash, project);
  await writeProjectFile(site, { project: project.projectSlug, apiUrl });
  return { projectHash, anonFingerprint: await anonFingerprint(config) };
}

/** A saved project as a first deploy writes it. */
export function savedProject(apiUrl: string, fields: Partial<SavedProject> = {}): SavedProject {
  return {
    projectSlug: SLUG,
    apiToken: TOKEN,
    apiUrl,
    dir: "",
    productionUrl: `https://${fields.projectSlug ?? SLUG}.sites.test/`,
    createdAt: "2026-11-01T09:00:00.000Z",
    ...fields,
  };
}

/** DEPLOY_CREDENTIAL for project `slug` on `apiUrl`, with its identity. */
export function credentialEnv(apiUrl: string, slug = SLUG, token = TOKEN): Record<string, string> {
  const identity = { projectHash: "c".repeat(64), anonFingerprint: "d".repeat(64) };
  return { DEPLOY_CREDENTIAL: encodeCredential({ apiUrl, projectSlug: slug, apiToken: token, ...identity }) };
}

/** The API's public view of a project, as the state and promote routes answer it. */
export function publicProject(fields: Partial<PublicProject> = {}): PublicProject {
  const slug = fields.projectSlug ?? SLUG;
  return {
    projectSlug: slug,
    hostname: `${slug}.sites.test`,
    generatedHostname: `${slug}.sites.test`,
    customHostname: null,
    customHostnameStatus: null,
    productionUrl: `https://${slug}.sites.test/`,
    revisionId: "rev0000002",
    createdAt: "2026-11-01T09:00:00.000Z",
    expiresAt: "2026-12-20T09:00:00.000Z",
    ...fields,
  };
}

/** One kept revision as the state route lists it (neither production nor preview unless told). */
export function revision(revisionId: string, fields: Partial<RevisionSummary> = {}): RevisionSummary {
  return {
    revisionId,
    createdAt: "2026-11-20T08:30:00.000Z",
    files: 3,
    bytes: 2048,
    production: false,
    preview: false,
    revisionUrl: `https://${revisionId}--${SLUG}.sites.test/`,
    message: null,
    ...fields,
  };
}

/** The state route's answer: `publicProject(project)` and `revisions`, newest first. */
export function stateAnswer(
  revisions: RevisionSummary[],
  project: Partial<PublicProject> = {},
): ProjectState {
  return { project: publicProject(project), revisions };
}

/** The folder locks held in a config folder (a run that ended must leave none). */
export async function heldLocks(config: string): Promise<string[]> {
  return readdir(join(config, "locks")).catch(() => []);
}
