import { PROJECT_GONE_CODES } from "../net/api-client.js";
import type { Manifest, PrepareResult } from "../net/api-types.js";
import type { CommandContext, FolderProject } from "../context.js";
import { ApiError } from "../errors.js";
import type { ProjectRecord } from "../local/project-store.js";

/** The project a deploy goes to, its first prepare answer, and the project it replaced if any. */
export interface PreparedProject {
  record: ProjectRecord;
  prepared: PrepareResult;
  previousProjectSlug: string | undefined;
}

/**
 * Prepares the deploy on the folder's project, creating the project on the first deploy. When the
 * stored project is gone (expired, deleted, purged), creates a new one and says the URL changed.
 */
export async function prepareProject(
  ctx: CommandContext,
  folder: FolderProject,
  manifestFor: (record: ProjectRecord) => Manifest,
): Promise<PreparedProject> {
  const stored = folder.record;
  if (stored === undefined) {
    const record = await createProject(ctx, folder);
    const prepared = await folder.api.prepare(record.projectSlug, record.apiToken, manifestFor(record));
    return { record, prepared, previousProjectSlug: undefined };
  }
  try {
    const prepared = await folder.api.prepare(stored.projectSlug, stored.apiToken, manifestFor(stored));
    return { record: stored, prepared, previousProjectSlug: undefined };
  } catch (error) {
    if (!(error instanceof ApiError && PROJECT_GONE_CODES.has(error.code))) throw error;
    const why = error.code === "PROJECT_EXPIRED" ? "has expired" : "no longer exists";
    const record = await createProject(ctx, folder);
    ctx.progress.note(
      `The project ${stored.projectSlug} ${why}; created a new project, ${record.projectSlug}. ` +
        `The site's URL changed: it is now ${record.productionUrl}`,
    );
    const prepared = await folder.api.prepare(record.projectSlug, record.apiToken, manifestFor(record));
    return { record, prepared, previousProjectSlug: stored.projectSlug };
  }
}

/** Creates a project for the folder and stores its token at once, so a later failure loses nothing. */
export async function createProject(ctx: CommandContext, folder: FolderProject): Promise<ProjectRecord> {
  const created = await folder.api.createProject();
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
