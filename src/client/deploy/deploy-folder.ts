import type { CompletedDeploy, Manifest } from "../net/api-types.js";
import { openFolder, type CommandContext, type FolderProject } from "../context.js";
import { ApiError } from "../errors.js";
import { plural } from "../format.js";
import { prepareProject } from "./prepare-project.js";
import { guardSourceFolder } from "./source-guard.js";
import { recordLink } from "./record-link.js";
import type { SavedProject } from "../local/saved-projects.js";
import type { DeploySummary } from "./deploy-summary.js";
import { hashListed, listSite, type ScannedSite } from "./scan-site.js";
import { checkQuotas, checkServerLimits } from "./server-limits.js";
import { warnCloudflareDrops } from "./cloudflare-warnings.js";
import { deployIfUnchanged, rememberProduction, unchangedSummary } from "./unchanged-deploy.js";
import { uploadAll, type UploadOutcome } from "./upload-rounds.js";
import { pendingDomain } from "../project-urls.js";

export type { DeploySummary } from "./deploy-summary.js";

/** How to deploy a folder. */
export interface DeployOptions {
  preview: boolean;
  includeDotfiles: boolean;
  /** `--prod` was given (production is the default): the command notes it. */
  prod?: boolean;
  /** Stored with the revision; a deploy with one always makes a revision of its own. */
  message?: string;
  /** Also serve the revision at `<alias>--<slug>.<domain>` (a preview: production is left). */
  alias?: string;
  /** Deploy a folder that looks like a project's source without asking. */
  yes: boolean;
}

/** Codes of a deploy completion that another prepare and upload round can fix. */
const REDO_CODES = new Set(["DEPLOY_EXPIRED", "INVALID_COMPLETION"]);

/**
 * Deploys a folder: walk, check limits, hash, prepare, upload what is missing, complete. Holds
 * the folder's lock throughout, so two runs on one folder never create two projects.
 */
export async function deployFolder(
  ctx: CommandContext,
  dir: string,
  options: DeployOptions,
): Promise<DeploySummary> {
  const startedAt = Date.now();
  const folder = await openFolder(ctx, dir, { lock: true });
  try {
    const remembered = folder.projectFile?.link.publishAsIs === true;
    const asIs = await guardSourceFolder(ctx, folder.realDir, options.yes || remembered);
    const summary = await deployLocked(ctx, folder, options, startedAt);
    await recordLink(ctx, folder, summary.projectSlug, asIs);
    return summary;
  } finally {
    // The live line goes before the summary reaches stdout, or the error stderr.
    ctx.progress.done();
    await folder.release();
  }
}

async function deployLocked(
  ctx: CommandContext,
  folder: FolderProject,
  options: DeployOptions,
  startedAt: number,
): Promise<DeploySummary> {
  const listed = await listSite(ctx, folder, options);
  // A preview wants a revision of its own even when production serves the same files, and so
  // does a deploy with a message: the message belongs to a revision.
  const skipUnchanged = !options.preview && options.message === undefined;
  if (skipUnchanged) {
    const unchanged = await deployIfUnchanged(ctx, folder, listed, startedAt);
    if (unchanged !== undefined) return unchanged;
  }
  // Before a project is created or a file read: what the server would refuse, refused here.
  const limits = await checkServerLimits(ctx, folder, listed.files);
  if (limits?.platform === "cloudflare") warnCloudflareDrops(ctx, listed.siteRules, listed.files);
  const site = await hashListed(ctx, folder, listed);
  const distinctBytes = [...site.fileByHash.values()].reduce((sum, file) => sum + file.size, 0);
  checkQuotas(limits, distinctBytes, folder.saved === undefined);
  const manifestFor = (project: SavedProject) => manifestOf(project.projectSlug, site);
  const first = await prepareProject(ctx, folder, manifestFor, skipUnchanged);
  const { project, previousProjectSlug } = first;
  if ("unchanged" in first.prepared) {
    await rememberProduction(folder, project.projectSlug, site);
    return unchangedSummary(folder, project, first.prepared, site, site.fileByHash.size, startedAt);
  }
  const prepared = first.prepared;
  const prepareAgain = () => {
    ctx.progress.step(`Preparing the deploy again (${plural(site.files.length, "file")})`);
    return folder.api.prepare(project.projectSlug, project.apiToken, manifestFor(project));
  };

  const outcome = await uploadAll(ctx, prepared, site.fileByHash, prepareAgain, site.kept);
  const result = await complete(ctx, folder, project, outcome, site, options, async () => {
    ctx.progress.note("The prepared deploy expired or was incomplete; preparing it again.");
    return uploadAll(ctx, await prepareAgain(), site.fileByHash, prepareAgain, site.kept);
  });
  await folder.savedProjects.put(folder.identityHash, {
    ...project,
    dir: folder.realDir,
    productionUrl: result.productionUrl,
  });
  if (!options.preview) await rememberProduction(folder, result.project.projectSlug, site);

  const distinct = site.fileByHash.size;
  return {
    projectSlug: result.project.projectSlug,
    revisionId: result.revisionId,
    productionUrl: result.productionUrl,
    revisionUrl: result.revisionUrl,
    expiresAt: result.project.expiresAt,
    files: site.files.length,
    uploaded: outcome.uploadedHashes.size,
    identical: site.files.length - distinct,
    reused: distinct - outcome.uploadedHashes.size,
    preview: options.preview,
    ...(options.message === undefined ? {} : { message: options.message }),
    ...(result.aliasUrl === undefined ? {} : { alias: options.alias, aliasUrl: result.aliasUrl }),
    ...pendingDomain(result.project),
    skippedDotfiles: site.skippedDotfiles,
    skippedGitignored: site.skippedGitignored,
    bytesUploaded: [...outcome.uploadedHashes].reduce(
      (sum, hash) => sum + site.fileByHash.get(hash)!.size,
      0,
    ),
    durationMs: Date.now() - startedAt,
    ...(previousProjectSlug === undefined ? {} : { previousProjectSlug }),
  };
}

/** The prepare manifest: `/<slug>/<path>` → hash and size. */
function manifestOf(slug: string, site: Pick<ScannedSite, "files" | "hashes">): Manifest {
  const manifest: Manifest = {};
  site.files.forEach((file, i) => {
    manifest[`/${slug}/${file.path}`] = { hash: site.hashes[i]!, size: file.size };
  });
  return manifest;
}

/** Completes the deploy; once, when it expired or lacked assets, redoes the round and tries again. */
async function complete(
  ctx: CommandContext,
  folder: FolderProject,
  project: SavedProject,
  outcome: UploadOutcome,
  site: Pick<ScannedSite, "siteRules">,
  options: DeployOptions,
  redo: () => Promise<UploadOutcome>,
): Promise<CompletedDeploy> {
  const { projectSlug, apiToken } = project;
  const deploy = (round: UploadOutcome) => {
    ctx.progress.step(options.preview ? "Publishing the preview" : "Publishing");
    return folder.api.deploy(projectSlug, apiToken, round.deployId, round.completionJwt, {
      preview: options.preview,
      siteRules: site.siteRules,
      message: options.message,
      alias: options.alias,
    });
  };
  try {
    return await deploy(outcome);
  } catch (error) {
    if (!(error instanceof ApiError && REDO_CODES.has(error.code))) throw error;
    const again = await redo();
    for (const hash of again.uploadedHashes) outcome.uploadedHashes.add(hash);
    return deploy(again);
  }
}
