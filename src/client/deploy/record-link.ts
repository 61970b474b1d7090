import type { CommandContext, FolderProject } from "../context.js";
import { CliError } from "../errors.js";
import { writeProjectFile } from "../local/project-file.js";

/**
 * After a deploy, makes the folder's project file name the project (written when missing or
 * stale: a new project, one replaced after it was gone, a yes to publishing a source folder to
 * remember), so that a moved or cloned folder deploys to the same project; and records the folder
 * as the project's on this machine. Not under DEPLOY_CREDENTIAL, which names the project itself.
 * A file that cannot be written is said, not fatal: the deploy is done.
 */
export async function recordLink(
  ctx: CommandContext,
  folder: FolderProject,
  projectSlug: string,
  publishAsIs: boolean,
): Promise<void> {
  if (folder.fromCredential) return;
  const current = folder.projectFile?.link;
  const asIs = publishAsIs || current?.publishAsIs === true;
  const stale =
    current?.project !== projectSlug ||
    current.apiUrl !== ctx.apiUrl ||
    (current.publishAsIs === true) !== asIs;
  if (stale) {
    const link = {
      project: projectSlug,
      apiUrl: ctx.apiUrl,
      ...(asIs ? { publishAsIs: true as const } : {}),
    };
    try {
      const path = await writeProjectFile(folder.realDir, link);
      if (current?.project !== projectSlug) {
        ctx.progress.note(
          `Wrote ${path}: it names project ${projectSlug} and holds no secret. Commit it: moved or cloned, ` +
            "the folder deploys to the same project.",
        );
      }
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      ctx.progress.note(`The folder's project file was not written: ${error.message}`);
    }
  }
  // Read again: the deploy may have written a newer record (a new production URL) than folder.saved.
  const saved = (await folder.savedProjects.findBySlug(ctx.apiUrl, projectSlug))?.project;
  if (saved !== undefined && saved.dir !== folder.realDir) {
    await folder.savedProjects.put(folder.identityHash, { ...saved, dir: folder.realDir });
  }
}
