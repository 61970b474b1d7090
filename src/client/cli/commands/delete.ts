import { PROJECT_GONE_CODES } from "../../net/api-client.js";
import { openProject, type CommandContext, type ProjectHandle } from "../../context.js";
import { confirm } from "../../confirm.js";
import { ApiError, CliError } from "../../errors.js";
import { deleteText, jsonLine } from "./output.js";
import { removeProjectFile } from "../../local/project-file.js";

/** `deploy delete`: deletes the folder's project after a confirmation (or --yes). */
export async function deleteCommand(ctx: CommandContext, dir: string, yes: boolean): Promise<void> {
  const handle = await openProject(ctx, dir, { lock: true });
  try {
    await deleteLocked(ctx, handle, yes);
  } finally {
    await handle.release();
  }
}

async function deleteLocked(ctx: CommandContext, handle: ProjectHandle, yes: boolean): Promise<void> {
  const { project, api } = handle;
  const where = project.productionUrl === "" ? "" : ` (${project.productionUrl})`;
  if (!yes) {
    try {
      await confirm(ctx.io, {
        text: `Delete project ${project.projectSlug}${where}? [y/N] `,
        notOnTerminal: {
          message: "not on a terminal: confirm the deletion with --yes",
          hint: "Example: deploy delete --dir ./dist --yes",
        },
        cancelled: "deletion cancelled; nothing was changed",
      });
    } catch (error) {
      if (!(error instanceof CliError && error.code === "CANCELLED")) throw error;
      // Answering no is a choice, not a failure: exit 0, nothing changed.
      if (ctx.json) ctx.io.stdout.write(jsonLine({ projectSlug: project.projectSlug, deleted: false }));
      ctx.io.stderr.write("Deletion cancelled; nothing was changed.\n");
      return;
    }
  }
  let result;
  try {
    result = await api.deleteProject(project.projectSlug, project.apiToken);
  } catch (error) {
    if (!(
      error instanceof ApiError &&
      PROJECT_GONE_CODES.has(error.code) &&
      error.code !== "PROJECT_EXPIRED"
    ))
      throw error;
    await forget(ctx, handle);
    throw new CliError(
      "PROJECT_GONE",
      `project ${project.projectSlug} no longer exists on ${ctx.apiUrl}; forgot it locally`,
    );
  }
  await forget(ctx, handle);
  const url = project.productionUrl === "" ? undefined : project.productionUrl;
  ctx.io.stdout.write(ctx.json ? jsonLine(result) : deleteText(result.projectSlug, url));
}

/** Forgets a deleted project: its token, and the project file that names it (a deploy makes a new one). */
async function forget(ctx: CommandContext, handle: ProjectHandle): Promise<void> {
  const folder = handle.folder;
  if (folder === undefined) return;
  await folder.savedProjects.remove(ctx.apiUrl, handle.project.projectSlug);
  const file = folder.projectFile;
  if (file?.link.project === handle.project.projectSlug) await removeProjectFile(file);
}
