import { openFolder, requireSavedProject, type CommandContext } from "../../context.js";
import { domainText, jsonLine, resetText } from "./output.js";

/** `deploy domain <hostname>` and `deploy domain --reset`: assigns or resets the project's hostname. */
export async function domainCommand(
  ctx: CommandContext,
  dir: string,
  hostname: string | undefined,
): Promise<void> {
  const folder = await openFolder(ctx, dir);
  const project = requireSavedProject(folder, ctx.apiUrl);
  if (hostname === undefined) {
    const result = await folder.api.resetDomain(project.projectSlug, project.apiToken);
    await folder.savedProjects.put(folder.projectHash, {
      ...project,
      productionUrl: result.project.productionUrl,
    });
    ctx.io.stdout.write(ctx.json ? jsonLine(result) : resetText(result.project));
    return;
  }
  const result = await folder.api.assignDomain(project.projectSlug, project.apiToken, hostname);
  await folder.savedProjects.put(folder.projectHash, {
    ...project,
    productionUrl: result.project.productionUrl,
  });
  ctx.io.stdout.write(ctx.json ? jsonLine(result) : domainText(result));
}
