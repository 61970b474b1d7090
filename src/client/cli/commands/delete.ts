import { createInterface } from "node:readline";
import { PROJECT_GONE_CODES } from "../../net/api-client.js";
import { openFolder, requireSavedProject, type CommandContext } from "../../context.js";
import { ApiError, CliError, UsageError } from "../../errors.js";
import { deleteText, jsonLine } from "./output.js";

/** `deploy delete`: deletes the folder's project after a confirmation (or --yes). */
export async function deleteCommand(ctx: CommandContext, dir: string, yes: boolean): Promise<void> {
  const folder = await openFolder(ctx, dir);
  const project = requireSavedProject(folder, ctx.apiUrl);
  if (!yes) await confirm(ctx, `Delete project ${project.projectSlug} (${project.productionUrl})? [y/N] `);
  let result;
  try {
    result = await folder.api.deleteProject(project.projectSlug, project.apiToken);
  } catch (error) {
    if (!(
      error instanceof ApiError &&
      PROJECT_GONE_CODES.has(error.code) &&
      error.code !== "PROJECT_EXPIRED"
    ))
      throw error;
    await folder.savedProjects.remove(ctx.apiUrl, folder.projectHash);
    throw new CliError(
      "PROJECT_GONE",
      `project ${project.projectSlug} no longer exists on ${ctx.apiUrl} (${error.code}); forgot it locally`,
    );
  }
  await folder.savedProjects.remove(ctx.apiUrl, folder.projectHash);
  ctx.io.stdout.write(ctx.json ? jsonLine(result) : deleteText(result.projectSlug, project.productionUrl));
}

async function confirm(ctx: CommandContext, question: string): Promise<void> {
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
  if (answer !== "y" && answer !== "yes")
    throw new CliError("CANCELLED", "deletion cancelled; nothing was changed");
}
