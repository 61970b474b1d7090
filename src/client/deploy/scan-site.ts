import type { CommandContext, FolderProject } from "../context.js";
import { formatBytes, formatCount, formatDuration, plural } from "../format.js";
import { statDigest } from "../local/last-deploy.js";
import { HashCache } from "../scan/hash-cache.js";
import { hashSite } from "../scan/hash.js";
import { KeptTexts } from "../scan/kept-text.js";
import { checkLimits } from "../scan/limits.js";
import { checkSiteRules, type SiteRulesTexts } from "../scan/site-rules-check.js";
import { walkSite } from "../scan/walk.js";
import type { SiteFile } from "../scan/walk-state.js";

/** A site folder listed for a deploy, before any file is read: its files, sorted by path, and its rules. */
export interface ListedSite {
  files: SiteFile[];
  /** Paths skipped only for being dotfiles or dot-folders (a folder ends in `/`). */
  skippedDotfiles: string[];
  /** Paths skipped because a `.gitignore` ignores them (a folder ends in `/`). */
  skippedGitignored: string[];
  /** The texts of `_redirects` and `_headers`, sent with the deploy. */
  siteRules: SiteRulesTexts;
  /** When the listing started (before any stat), for the racy windows of the caches. */
  scannedAt: number;
  /** `statDigest` of the files: compared with the last deploy's, and recorded after this one. */
  statDigest: string;
}

/**
 * A site folder read for a deploy: its files, their hashes (same order), one file per distinct
 * hash, and the base64 text the hashing kept of some files read, for their upload.
 */
export interface ScannedSite extends ListedSite {
  hashes: string[];
  fileByHash: Map<string, SiteFile>;
  kept: KeptTexts;
}

/** Most skipped dotfiles named in the line that says so. */
const NAMED_DOTFILES = 10;

/** Walks the folder and checks the limits and the rules files, before anything is sent. */
export async function listSite(
  ctx: CommandContext,
  folder: FolderProject,
  options: { includeDotfiles: boolean },
): Promise<ListedSite> {
  // Taken before any stat: a file modified after it is never trusted from the cache next time.
  const scannedAt = Date.now();
  ctx.progress.step(`Listing ${folder.realDir}`);
  const skippedDotfiles: string[] = [];
  const skippedGitignored: string[] = [];
  const files = await walkSite(folder.realDir, {
    includeDotfiles: options.includeDotfiles,
    skippedDotfiles,
    skippedGitignored,
  });
  if (skippedDotfiles.length > 0) ctx.progress.note(dotfilesLine(skippedDotfiles));
  if (skippedGitignored.length > 0) ctx.progress.note(gitignoredLine(skippedGitignored));
  if (!files.some((file) => file.path === "index.html")) {
    ctx.progress.note(
      `Note: ${folder.realDir} has no index.html: the site's address (/) answers 404 unless a _redirects rule serves it.`,
    );
  }
  checkLimits(folder.realDir, files, ctx.settings);
  const siteRules = await checkSiteRules(ctx.io.cwd, files);
  return { files, skippedDotfiles, skippedGitignored, siteRules, scannedAt, statDigest: statDigest(files) };
}

/** Hashes the listed files, from the hash cache where they are unchanged. */
export async function hashListed(
  ctx: CommandContext,
  folder: FolderProject,
  listed: ListedSite,
): Promise<ScannedSite> {
  const kept = new KeptTexts();
  const hashes = await hashFiles(ctx, folder, listed.files, listed.scannedAt, kept);
  const fileByHash = new Map<string, SiteFile>();
  listed.files.forEach((file, i) => {
    if (!fileByHash.has(hashes[i]!)) fileByHash.set(hashes[i]!, file);
  });
  return { ...listed, hashes, fileByHash, kept };
}

/** The line that says no file was read again, because none changed since the last deploy. */
export function unchangedLine(files: readonly SiteFile[]): string {
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0);
  return `${plural(files.length, "file")} (${formatBytes(totalBytes)}) unchanged since the last deploy: none read again`;
}

/** The one line that names what was skipped as dotfiles, and how to deploy them. */
export function dotfilesLine(paths: readonly string[]): string {
  const named = paths.slice(0, NAMED_DOTFILES).join(", ");
  const more = paths.length > NAMED_DOTFILES ? ` and ${formatCount(paths.length - NAMED_DOTFILES)} more` : "";
  return (
    `Skipped ${plural(paths.length, "dotfile")}: ${named}${more} ` +
    "(--include-dotfiles, or a ! rule in .deployignore, deploys them)"
  );
}

/** The one line that names what a `.gitignore` kept out, and how to deploy one anyway. */
export function gitignoredLine(paths: readonly string[]): string {
  const named = paths.slice(0, NAMED_DOTFILES).join(", ");
  const more = paths.length > NAMED_DOTFILES ? ` and ${formatCount(paths.length - NAMED_DOTFILES)} more` : "";
  return (
    `Skipped ${plural(paths.length, "path")} a .gitignore ignores: ${named}${more} ` +
    "(a ! rule in .deployignore deploys one)"
  );
}

async function hashFiles(
  ctx: CommandContext,
  folder: FolderProject,
  files: SiteFile[],
  scannedAt: number,
  keep: KeptTexts,
): Promise<string[]> {
  const started = Date.now();
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0);
  ctx.progress.start("Hashing", files.length, totalBytes);
  const cache = await HashCache.load(folder.configDir, folder.projectHash, scannedAt);
  let fromCache = 0;
  let readBytes = 0;
  const hashes = await hashSite(files, {
    cache,
    threads: ctx.settings.hashThreads,
    threadMinFiles: ctx.settings.hashThreadMinFiles,
    keep,
    onFile: (file, cached) => {
      if (cached) fromCache++;
      else readBytes += file.size;
      ctx.progress.advance(1, file.size);
    },
  });
  await cache.save();
  const took = formatDuration(Date.now() - started);
  const read = files.length - fromCache;
  ctx.progress.finish(
    fromCache === 0
      ? `Hashed ${plural(files.length, "file")} (${formatBytes(totalBytes)}) in ${took}`
      : read === 0
        ? unchangedLine(files)
        : `Hashed ${formatCount(read)} of ${plural(files.length, "file")} (${formatBytes(readBytes)}) in ${took}; ` +
          `${formatCount(fromCache)} unchanged since the last deploy ${fromCache === 1 ? "was" : "were"} not read again`,
  );
  return hashes;
}
