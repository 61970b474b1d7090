import type { CommandContext, FolderProject } from "../context.js";
import { formatBytes, formatCount, formatDuration, plural } from "../format.js";
import { HashCache } from "../scan/hash-cache.js";
import { hashSite } from "../scan/hash.js";
import { checkLimits } from "../scan/limits.js";
import { checkSiteRules } from "../scan/site-rules-check.js";
import { walkSite, type SiteFile } from "../scan/walk.js";

/** A site folder read for a deploy: its files, their hashes (same order), one file per distinct hash. */
export interface ScannedSite {
  files: SiteFile[];
  hashes: string[];
  fileByHash: Map<string, SiteFile>;
}

/** Walks the folder, checks the limits and the rules files (before anything is sent), and hashes the files. */
export async function scanSite(ctx: CommandContext, folder: FolderProject): Promise<ScannedSite> {
  const files = await walkSite(folder.realDir);
  checkLimits(folder.realDir, files, ctx.settings);
  await checkSiteRules(ctx.io.cwd, files);
  const hashes = await hashFiles(ctx, folder, files);
  const fileByHash = new Map<string, SiteFile>();
  files.forEach((file, i) => {
    if (!fileByHash.has(hashes[i]!)) fileByHash.set(hashes[i]!, file);
  });
  return { files, hashes, fileByHash };
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
    threadMinFiles: ctx.settings.hashThreadMinFiles,
    onFile: (file, cached) => {
      if (cached) fromCache++;
      ctx.progress.advance(1, file.size);
    },
  });
  await cache.save();
  ctx.progress.finish(
    `Hashed ${plural(files.length, "file")} (${formatBytes(totalBytes)}, ${formatCount(fromCache)} unchanged ` +
      `since last time) in ${formatDuration(Date.now() - started)}`,
  );
  return hashes;
}
