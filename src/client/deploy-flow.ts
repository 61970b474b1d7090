import { PROJECT_GONE_CODES } from "./api-client.js";
import type { Manifest, PrepareResult } from "./api-types.js";
import { openFolder, type CommandContext, type FolderProject } from "./context.js";
import { ApiError } from "./errors.js";
import { formatBytes, formatCount, formatDuration, plural } from "./format.js";
import { hashSite } from "./hash.js";
import { HashCache } from "./hash-cache.js";
import { checkLimits } from "./limits.js";
import type { ProjectRecord } from "./project-store.js";
import { uploadAll } from "./upload-rounds.js";
import { walkSite, type SiteFile } from "./walk.js";

/** The outcome of a deploy, as printed (and as `--json`). */
export interface DeploySummary {
  projectSlug: string;
  revisionId: string;
  productionUrl: string;
  revisionUrl: string;
  files: number;
  uploaded: number;
  reused: number;
  bytesUploaded: number;
  durationMs: number;
  /** Set when the stored project was gone and a new one (with a new URL) was made. */
  previousProjectSlug?: string;
}

/** Deploys a folder: walk, check limits, hash, prepare, upload what is missing, complete. */
export async function deployFolder(ctx: CommandContext, dir: string): Promise<DeploySummary> {
  const startedAt = Date.now();
  const folder = await openFolder(ctx, dir);
  const files = await walkSite(folder.realDir);
  checkLimits(folder.realDir, files, ctx.settings);
  const hashes = await hashFiles(ctx, folder, files);
  const fileByHash = new Map<string, SiteFile>();
  files.forEach((file, i) => fileByHash.has(hashes[i]!) || fileByHash.set(hashes[i]!, file));

  let record = folder.record ?? (await createProject(ctx, folder));
  let previousProjectSlug: string | undefined;
  let prepared: PrepareResult;
  try {
    prepared = await folder.api.prepare(
      record.projectSlug,
      record.apiToken,
      manifestOf(record, files, hashes),
    );
  } catch (error) {
    if (!(error instanceof ApiError && PROJECT_GONE_CODES.has(error.code)) || folder.record === undefined)
      throw error;
    previousProjectSlug = record.projectSlug;
    const why = error.code === "PROJECT_EXPIRED" ? "has expired" : "no longer exists";
    record = await createProject(ctx, folder);
    ctx.progress.note(
      `The project ${previousProjectSlug} ${why}; created a new project, ${record.projectSlug}. ` +
        `The site's URL changed: it is now ${record.productionUrl}`,
    );
    prepared = await folder.api.prepare(
      record.projectSlug,
      record.apiToken,
      manifestOf(record, files, hashes),
    );
  }

  const current = record;
  const outcome = await uploadAll(ctx, prepared, fileByHash, () =>
    folder.api.prepare(current.projectSlug, current.apiToken, manifestOf(current, files, hashes)),
  );
  const result = await folder.api.deploy(
    record.projectSlug,
    record.apiToken,
    outcome.deployId,
    outcome.completionJwt,
  );
  await folder.store.put(folder.projectHash, { ...record, productionUrl: result.productionUrl });

  const covered = files.filter((_, i) => outcome.uploadedHashes.has(hashes[i]!)).length;
  return {
    projectSlug: result.project.projectSlug,
    revisionId: result.revisionId,
    productionUrl: result.productionUrl,
    revisionUrl: result.revisionUrl,
    files: files.length,
    uploaded: outcome.uploadedHashes.size,
    reused: files.length - covered,
    bytesUploaded: outcome.bytesUploaded,
    durationMs: Date.now() - startedAt,
    ...(previousProjectSlug === undefined ? {} : { previousProjectSlug }),
  };
}

/** The prepare manifest: `/<slug>/<path>` → hash and size. */
export function manifestOf(
  record: ProjectRecord,
  files: readonly SiteFile[],
  hashes: readonly string[],
): Manifest {
  const manifest: Manifest = {};
  files.forEach((file, i) => {
    manifest[`/${record.projectSlug}/${file.path}`] = { hash: hashes[i]!, size: file.size };
  });
  return manifest;
}

async function hashFiles(ctx: CommandContext, folder: FolderProject, files: SiteFile[]): Promise<string[]> {
  const started = Date.now();
  const cache = await HashCache.load(folder.configDir, folder.projectHash);
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0);
  let fromCache = 0;
  ctx.progress.start("Hashing", files.length, totalBytes);
  const hashes = await hashSite(files, {
    cache,
    threads: ctx.settings.hashThreads,
    onFile: (file, cached) => {
      if (cached) fromCache++;
      ctx.progress.advance(1, file.size);
    },
  });
  await cache.save();
  ctx.progress.finish(
    `Hashed ${plural(files.length, "file")} (${formatBytes(totalBytes)}, ${formatCount(fromCache)} unchanged since last time) in ${formatDuration(Date.now() - started)}`,
  );
  return hashes;
}

async function createProject(ctx: CommandContext, folder: FolderProject): Promise<ProjectRecord> {
  const api = folder.api;
  const created = await api.createProject();
  const record: ProjectRecord = {
    projectSlug: created.project.projectSlug,
    apiToken: created.apiToken,
    apiUrl: ctx.apiUrl,
    dir: folder.realDir,
    productionUrl: created.project.productionUrl,
    createdAt: created.project.createdAt,
  };
  await folder.store.put(folder.projectHash, record);
  ctx.progress.note(`Created project ${record.projectSlug} for ${folder.realDir}`);
  return record;
}
