import { ApiClient } from "./net/api-client.js";
import { configDir } from "./local/config-dir.js";
import { decodeCredential, type Credential } from "./local/credential.js";
import { CliError, UsageError } from "./errors.js";
import { lockFolder } from "./local/folder-lock.js";
import { anonFingerprint, projectHashOf, resolveSiteDir } from "./local/identity.js";
import type { CliIo } from "./io.js";
import { createProgress, type Progress } from "./progress.js";
import { SavedProjects, type SavedProject } from "./local/saved-projects.js";
import { resolveFolderLink } from "./local/folder-link.js";
import { findProjectFile, type FoundProjectFile } from "./local/project-file.js";
import { defaultRetryPolicy, type RetryNotice, type RetryPolicy } from "./net/retry.js";
import { formatDuration } from "./format.js";
import { resolveApiUrl, type Settings } from "./settings.js";

/** What every command works with. */
export interface CommandContext {
  io: CliIo;
  settings: Settings;
  apiUrl: string;
  json: boolean;
  progress: Progress;
  retry: RetryPolicy;
  /** From DEPLOY_CREDENTIAL: the project every command acts on, whatever the folder. */
  credential: Credential | undefined;
}

/** Where a folder's project is remembered: the config folder, or nowhere (under a credential). */
export interface ProjectMemory {
  findBySlug(apiUrl: string, projectSlug: string): Promise<{ project: SavedProject } | undefined>;
  put(projectHash: string, project: SavedProject): Promise<void>;
  remove(apiUrl: string, projectSlug: string): Promise<void>;
}

/** A folder resolved to its project identity, with its saved project if any. */
export interface FolderProject {
  realDir: string;
  /** The folder's own projectHash (its hash cache and lock are keyed on it). */
  projectHash: string;
  /**
   * The projectHash its project's requests carry, and its saved project is kept under: the one
   * the project was created with, which a moved or cloned folder no longer has.
   */
  identityHash: string;
  /** The project file that names the folder, if one does. */
  projectFile: FoundProjectFile | undefined;
  configDir: string;
  savedProjects: ProjectMemory;
  saved: SavedProject | undefined;
  api: ApiClient;
  /** True when the project comes from DEPLOY_CREDENTIAL, not from this folder's saved project. */
  fromCredential: boolean;
  /** Lets the folder's lock go (nothing when it was not locked). */
  release(): Promise<void>;
}

/** A project to act on, with its API client, and the folder it came from when there is one. */
export interface ProjectHandle {
  project: SavedProject;
  api: ApiClient;
  folder: FolderProject | undefined;
  release(): Promise<void>;
}

const FORGETFUL: ProjectMemory = {
  findBySlug: async () => undefined,
  put: async () => {},
  remove: async () => {},
};

/** Builds the context of a command from the process and its options. */
export function createContext(
  io: CliIo,
  settings: Settings,
  apiUrlFlag: string | undefined,
  json: boolean,
): CommandContext {
  const live = io.stderr.isTTY === true && !io.env.CI;
  const progress = createProgress(io.stderr, live);
  const retry = defaultRetryPolicy({ maxAttempts: settings.maxAttempts, baseMs: settings.retryBaseMs });
  const raw = io.env.DEPLOY_CREDENTIAL;
  const credential = raw === undefined || raw.trim() === "" ? undefined : decodeCredential(raw);
  let apiUrl: string;
  if (credential === undefined) {
    apiUrl = resolveApiUrl(apiUrlFlag, io.env);
  } else {
    // The token belongs to the credential's server; another URL can only be a mistake.
    if (apiUrlFlag !== undefined && apiUrlFlag !== credential.apiUrl.replace(/\/+$/, "")) {
      throw new UsageError(
        `--api-url ${apiUrlFlag} is not the API of DEPLOY_CREDENTIAL's project (${credential.apiUrl})`,
        "Leave --api-url out, or unset DEPLOY_CREDENTIAL.",
      );
    }
    apiUrl = credential.apiUrl.replace(/\/+$/, "");
  }
  return { io, settings, apiUrl, json, progress, retry, credential };
}

/** A line that says a request failed and will be tried again. */
export function retryNote(progress: Progress): (notice: RetryNotice) => void {
  return ({ attempt, maxAttempts, delayMs, error }) =>
    progress.note(
      `${error.message} — retrying in ${formatDuration(delayMs)} (attempt ${attempt + 1} of ${maxAttempts})`,
    );
}

/**
 * Resolves a folder to its project: real path, projectHash, fingerprint, saved project (or the
 * credential's), API client. With `lock`, first waits for the folder's lock, so that its saved
 * project is read after any other run on it has saved its own.
 */
export async function openFolder(
  ctx: CommandContext,
  dir: string,
  options: { lock: boolean },
): Promise<FolderProject> {
  const realDir = await resolveSiteDir(ctx.io.cwd, dir);
  const projectHash = projectHashOf(realDir);
  const config = configDir(ctx.io.env);
  if (realDir === config || config.startsWith(`${realDir}/`)) {
    throw new CliError(
      "CONFIG_INSIDE",
      `the config folder ${config} is inside ${realDir}`,
      "Set DEPLOY_CONFIG_DIR elsewhere.",
    );
  }
  const release = options.lock
    ? await lockFolder({
        configDir: config,
        key: projectHash,
        dir: realDir,
        waitSeconds: ctx.settings.lockWaitSeconds,
        onWait: (message) => ctx.progress.note(message),
      })
    : async () => {};
  try {
    const credential = ctx.credential;
    if (credential !== undefined) {
      const api = credentialApi(ctx, credential);
      const saved = fromCredential(ctx, credential, realDir);
      return {
        realDir,
        projectHash,
        identityHash: credential.projectHash,
        projectFile: await findProjectFile(realDir),
        configDir: config,
        savedProjects: FORGETFUL,
        saved,
        api,
        fromCredential: true,
        release,
      };
    }
    const savedProjects = new SavedProjects(config);
    const link = await resolveFolderLink(savedProjects, ctx.apiUrl, realDir, projectHash);
    const identity = { projectHash: link.identityHash, anonFingerprint: await anonFingerprint(config) };
    const api = new ApiClient(ctx.apiUrl, identity, ctx.retry, retryNote(ctx.progress));
    const { saved, identityHash, projectFile } = link;
    return {
      realDir,
      projectHash,
      identityHash,
      projectFile,
      configDir: config,
      savedProjects,
      saved,
      api,
      fromCredential: false,
      release,
    };
  } catch (error) {
    await release();
    throw error;
  }
}

/**
 * The project a command acts on: DEPLOY_CREDENTIAL's (no folder needed), else the folder's saved
 * project, or a CliError that says to deploy it first.
 */
export async function openProject(
  ctx: CommandContext,
  dir: string,
  options: { lock: boolean },
): Promise<ProjectHandle> {
  const credential = ctx.credential;
  if (credential !== undefined) {
    const api = credentialApi(ctx, credential);
    return { project: fromCredential(ctx, credential, ""), api, folder: undefined, release: async () => {} };
  }
  const folder = await openFolder(ctx, dir, options);
  try {
    return {
      project: requireSavedProject(folder, ctx.apiUrl),
      api: folder.api,
      folder,
      release: folder.release,
    };
  } catch (error) {
    await folder.release();
    throw error;
  }
}

/** The saved project of a folder, or a CliError that says to deploy it first. */
export function requireSavedProject(folder: FolderProject, apiUrl: string): SavedProject {
  if (folder.saved !== undefined) return folder.saved;
  throw new CliError(
    "NO_PROJECT",
    `no project for ${folder.realDir} on ${apiUrl}`,
    "Deploy the folder first with `deploy <dir>` (and the same --api-url), or set DEPLOY_CREDENTIAL.",
  );
}

/** An API client with the credential's identity fields (only those: its token goes in the header). */
function credentialApi(ctx: CommandContext, credential: Credential): ApiClient {
  const identity = { projectHash: credential.projectHash, anonFingerprint: credential.anonFingerprint };
  return new ApiClient(ctx.apiUrl, identity, ctx.retry, retryNote(ctx.progress));
}

function fromCredential(ctx: CommandContext, credential: Credential, dir: string): SavedProject {
  return {
    projectSlug: credential.projectSlug,
    apiToken: credential.apiToken,
    apiUrl: ctx.apiUrl,
    dir,
    productionUrl: "",
    createdAt: "",
  };
}
