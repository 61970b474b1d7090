import { ApiClient } from "./net/api-client.js";
import { configDir } from "./local/config-dir.js";
import { CliError } from "./errors.js";
import { anonFingerprint, projectHashOf, resolveSiteDir } from "./local/identity.js";
import type { CliIo } from "./io.js";
import { createProgress, type Progress } from "./progress.js";
import { SavedProjects, type SavedProject } from "./local/saved-projects.js";
import { defaultRetryPolicy, type RetryNotice, type RetryPolicy } from "./net/retry.js";
import { formatDuration } from "./format.js";
import type { Settings } from "./settings.js";

/** What every command works with. */
export interface CommandContext {
  io: CliIo;
  settings: Settings;
  apiUrl: string;
  json: boolean;
  progress: Progress;
  retry: RetryPolicy;
}

/** A folder resolved to its project identity, with its saved project if any. */
export interface FolderProject {
  realDir: string;
  projectHash: string;
  configDir: string;
  savedProjects: SavedProjects;
  saved: SavedProject | undefined;
  api: ApiClient;
}

/** Builds the context of a command from the process and its options. */
export function createContext(io: CliIo, settings: Settings, apiUrl: string, json: boolean): CommandContext {
  const live = io.stderr.isTTY === true && !io.env.CI;
  const progress = createProgress(io.stderr, live);
  const retry = defaultRetryPolicy({ maxAttempts: settings.maxAttempts, baseMs: settings.retryBaseMs });
  return { io, settings, apiUrl, json, progress, retry };
}

/** A line that says a request failed and will be tried again. */
export function retryNote(progress: Progress): (notice: RetryNotice) => void {
  return ({ attempt, maxAttempts, delayMs, error }) =>
    progress.note(
      `${error.message} — retrying in ${formatDuration(delayMs)} (attempt ${attempt + 1} of ${maxAttempts})`,
    );
}

/** Resolves a folder to its project: real path, projectHash, fingerprint, saved project, API client. */
export async function openFolder(ctx: CommandContext, dir: string): Promise<FolderProject> {
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
  const identity = { projectHash, anonFingerprint: await anonFingerprint(config) };
  const savedProjects = new SavedProjects(config);
  const saved = await savedProjects.get(ctx.apiUrl, projectHash);
  const api = new ApiClient(ctx.apiUrl, identity, ctx.retry, retryNote(ctx.progress));
  return { realDir, projectHash, configDir: config, savedProjects, saved, api };
}

/** The saved project of a folder, or a CliError that says to deploy it first. */
export function requireSavedProject(folder: FolderProject, apiUrl: string): SavedProject {
  if (folder.saved !== undefined) return folder.saved;
  throw new CliError(
    "NO_PROJECT",
    `no project for ${folder.realDir} on ${apiUrl}`,
    "Deploy the folder first with `deploy <dir>` (and the same --api-url).",
  );
}
