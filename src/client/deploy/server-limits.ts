import { MAX_SLUG_LENGTH } from "../../core/formats.js";
import type { CommandContext, FolderProject } from "../context.js";
import { CliError } from "../errors.js";
import { formatBytes, formatCount } from "../format.js";
import type { ServerLimits } from "../net/api-types.js";
import { checkLimits } from "../scan/limits.js";
import type { SiteFile } from "../scan/walk-state.js";

/** The identity fields and the braces around the manifest, generously. */
const BODY_OVERHEAD = 512;

/**
 * Asks the server for its limits and refuses, before anything is created or sent, a site it would
 * refuse: too many files, a file too large, a manifest over its request size. Returns the limits
 * (undefined from a server without `GET /limits`) for `checkQuotas` once the files are hashed.
 */
export async function checkServerLimits(
  ctx: CommandContext,
  folder: FolderProject,
  files: readonly SiteFile[],
): Promise<ServerLimits | undefined> {
  ctx.progress.step("Asking the server for its limits");
  const limits = await folder.api.limits();
  if (limits === undefined) return undefined;
  const source = {
    limit: "the server's limit",
    hint: ` (${ctx.apiUrl}/limits lists what the server accepts.)`,
  };
  checkLimits(
    folder.realDir,
    files,
    { maxFiles: limits.maxFiles, maxFileBytes: limits.maxFileBytes },
    source,
  );
  const slugLength = folder.saved?.projectSlug.length ?? MAX_SLUG_LENGTH;
  const bytes = manifestBytes(files, slugLength);
  if (bytes > limits.maxRequestBytes) {
    throw new CliError(
      "MANIFEST_TOO_LARGE",
      `the list of ${formatCount(files.length)} files and their paths takes ${formatBytes(bytes)}; ` +
        `the server accepts at most ${formatBytes(limits.maxRequestBytes)} in one request`,
      "Shorten the longest paths, or leave files out with .deployignore.",
    );
  }
  // Contract §2: the paths (`/` and the file's), in UTF-8, together at most MAX_MANIFEST_BYTES.
  const pathBytes = files.reduce((sum, file) => sum + Buffer.byteLength(file.path, "utf8") + 1, 0);
  // A server from before issue 31 does not say.
  if (limits.maxManifestBytes !== undefined && pathBytes > limits.maxManifestBytes) {
    throw new CliError(
      "MANIFEST_TOO_LARGE",
      `the paths of ${formatCount(files.length)} files take ${formatBytes(pathBytes)} together; ` +
        `the server accepts at most ${formatBytes(limits.maxManifestBytes)} of paths in one deploy`,
      "Shorten the longest paths, or leave files out with .deployignore.",
    );
  }
  return limits;
}

/**
 * Refuses content no deploy of it could fit in the server's quotas: more distinct bytes than a
 * project may keep, or (for a new project, which must send all of it) than an address may have
 * prepared at once.
 */
export function checkQuotas(
  limits: ServerLimits | undefined,
  distinctBytes: number,
  newProject: boolean,
): void {
  if (limits === undefined) return;
  const { projectQuotaBytes, pendingQuotaBytes } = limits;
  const over = (quota: number) => quota > 0 && distinctBytes > quota;
  if (!over(projectQuotaBytes) && !(newProject && over(pendingQuotaBytes))) return;
  const quota = over(projectQuotaBytes) ? projectQuotaBytes : pendingQuotaBytes;
  const what = over(projectQuotaBytes) ? "a project may keep" : "may wait to be uploaded at once";
  throw new CliError(
    "QUOTA_EXCEEDED",
    `the site's content is ${formatBytes(distinctBytes)}; on this server at most ${formatBytes(quota)} ${what}`,
    "Leave large files out with .deployignore, or ask the server's operator for a larger quota.",
  );
}

/** The bytes of the prepare body's manifest for these files, at most (JSON, UTF-8). */
function manifestBytes(files: readonly SiteFile[], slugLength: number): number {
  // `"/<slug>/<path>":{"hash":"<32 hex>","size":<n>},`
  const perEntry = slugLength + 2 + '"":{"hash":"","size":},'.length + 32;
  let total = BODY_OVERHEAD;
  for (const file of files) {
    total += perEntry + Buffer.byteLength(JSON.stringify(file.path)) - 2 + String(file.size).length;
  }
  return total;
}
