import { createInterface } from "node:readline";
import { PROJECT_GONE_CODES } from "../../net/api-client.js";
import { openProject, type CommandContext, type ProjectHandle } from "../../context.js";
import { ApiError, CliError, UsageError } from "../../errors.js";
import { deleteText, jsonLine } from "./output.js";

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
  const { project, api, folder } = handle;
  const where = project.productionUrl === "" ? "" : ` (${project.productionUrl})`;
  if (!yes && !(await confirm(ctx, `Delete project ${project.projectSlug}${where}? [y/N] `))) {
    // Answering no is a choice, not a failure: exit 0, nothing changed.
    if (ctx.json) ctx.io.stdout.write(jsonLine({ projectSlug: project.projectSlug, deleted: false }));
    ctx.io.stderr.write("Deletion cancelled; nothing was changed.\n");
    return;
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
    await folder?.savedProjects.remove(ctx.apiUrl, folder.projectHash);
    throw new CliError(
      "PROJECT_GONE",
      `project ${project.projectSlug} no longer exists on ${ctx.apiUrl}; forgot it locally`,
    );
  }
  await folder?.savedProjects.remove(ctx.apiUrl, folder.projectHash);
  const url = project.productionUrl === "" ? undefined : project.productionUrl;
  ctx.io.stdout.write(ctx.json ? jsonLine(result) : deleteText(result.projectSlug, url));
}

/** Asks `question` on the terminal; true when the answer is yes. */
async function confirm(ctx: CommandContext, question: string): Promise<boolean> {
  const stdin = ctx.io.stdin;
  if (stdin?.isTTY !== true || ctx.io.stderr.isTTY !== true) {
    throw new UsageError(
      "not on a terminal: confirm the deletion with --yes",
      "Example: deploy delete --dir ./dist --yes",
    );
  }
  ctx.io.stderr.write(question);
  const lines = createInterface({ input: stdin, terminal: false });
  let answer = "";
  for await (const line of lines) {
    answer = line.trim().toLowerCase();
    break;
  }
  lines.close();
  return answer === "y" || answer === "yes";
}
