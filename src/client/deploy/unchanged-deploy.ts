import { manifestDigest } from "../../core/manifest-digest.js";
import type { CommandContext, FolderProject } from "../context.js";
import { ApiError } from "../errors.js";
import { loadLastDeploy, saveLastDeploy, statsSettled } from "../local/last-deploy.js";
import type { SavedProject } from "../local/saved-projects.js";
import { PROJECT_GONE_CODES } from "../net/api-client.js";
import type { UnchangedDeploy } from "../net/api-types.js";
import type { DeploySummary } from "./deploy-summary.js";
import { pendingDomain } from "../project-urls.js";
import { unchangedLine, type ListedSite, type ScannedSite } from "./scan-site.js";

/**
 * Answers after which the long way (hash, prepare with the manifest) decides: production moved
 * (MANIFEST_CHANGED), the project is gone (the long way makes a new one), or a server from before
 * the digest form, which takes the absent manifest for a bad one.
 */
const LONG_WAY_CODES = new Set([
  "MANIFEST_CHANGED",
  "INVALID_MANIFEST",
  "INVALID_REQUEST",
  ...PROJECT_GONE_CODES,
]);

/**
 * The unchanged redeploy without reading a file: when every file's stats are those of the
 * folder's last production deploy, one prepare names that deploy's manifest by its digest. The
 * summary when the server answers unchanged; undefined, having changed nothing, when the deploy
 * must go the long way.
 */
export async function deployIfUnchanged(
  ctx: CommandContext,
  folder: FolderProject,
  listed: ListedSite,
  startedAt: number,
): Promise<DeploySummary | undefined> {
  const saved = folder.saved;
  if (saved === undefined) return undefined;
  const last = await loadLastDeploy(folder.configDir, folder.projectHash);
  if (last?.projectSlug !== saved.projectSlug || last.statDigest !== listed.statDigest) {
    return undefined;
  }
  let unchanged: UnchangedDeploy;
  ctx.progress.step("Asking the server whether production already serves these files");
  try {
    unchanged = await folder.api.prepareByDigest(saved.projectSlug, saved.apiToken, last.manifestDigest);
  } catch (error) {
    if (error instanceof ApiError && LONG_WAY_CODES.has(error.code)) return undefined;
    throw error;
  }
  ctx.progress.note(unchangedLine(listed.files));
  return unchangedSummary(folder, saved, unchanged, listed, last.distinctHashes, startedAt);
}

/**
 * Remembers a production deploy of these files (or production found serving them), so that the
 * next run with the same stats takes the way above; not when a file was modified so recently that
 * its stats could hide a later change.
 */
export async function rememberProduction(
  folder: FolderProject,
  projectSlug: string,
  site: ScannedSite,
): Promise<void> {
  if (!statsSettled(site.files, site.scannedAt)) return;
  const entries = site.files.map((file, i) => ({
    path: `/${file.path}`,
    hash: site.hashes[i]!,
    size: file.size,
  }));
  await saveLastDeploy(folder.configDir, folder.projectHash, {
    projectSlug,
    statDigest: site.statDigest,
    manifestDigest: manifestDigest(entries),
    distinctHashes: site.fileByHash.size,
  });
}

/** What a deploy that production already served reports: nothing sent, the production revision. */
export async function unchangedSummary(
  folder: FolderProject,
  project: SavedProject,
  unchanged: UnchangedDeploy,
  site: Pick<ListedSite, "files" | "skippedDotfiles" | "skippedGitignored">,
  distinctHashes: number,
  startedAt: number,
): Promise<DeploySummary> {
  // Written only when production moved to another address (a custom domain since): it is the
  // one thing here that can have changed.
  if (project.productionUrl !== unchanged.urls.production) {
    await folder.savedProjects.put(folder.identityHash, {
      ...project,
      productionUrl: unchanged.urls.production,
    });
  }
  return {
    projectSlug: unchanged.project.projectSlug,
    revisionId: unchanged.revisionId,
    productionUrl: unchanged.urls.production,
    revisionUrl: unchanged.urls.revision,
    expiresAt: unchanged.project.expiresAt,
    files: site.files.length,
    uploaded: 0,
    identical: site.files.length - distinctHashes,
    reused: distinctHashes,
    preview: false,
    unchanged: true,
    ...pendingDomain(unchanged.project),
    skippedDotfiles: site.skippedDotfiles,
    skippedGitignored: site.skippedGitignored,
    bytesUploaded: 0,
    durationMs: Date.now() - startedAt,
  };
}
