import { openProject, type CommandContext } from "../../context.js";
import { domainText, jsonLine, resetText } from "./output.js";

/** `deploy domain <hostname>` and `deploy domain --reset`: assigns or resets the project's hostname. */
export async function domainCommand(
  ctx: CommandContext,
  dir: string,
  hostname: string | undefined,
): Promise<void> {
  const handle = await openProject(ctx, dir, { lock: true });
  try {
    const { project, api, folder } = handle;
    if (hostname === undefined) {
      const result = await api.resetDomain(project.projectSlug, project.apiToken);
      await folder?.savedProjects.put(folder.projectHash, {
        ...project,
        productionUrl: result.project.productionUrl,
      });
      ctx.io.stdout.write(ctx.json ? jsonLine(result) : resetText(result.project));
      return;
    }
    const result = await api.assignDomain(project.projectSlug, project.apiToken, hostname);
    await folder?.savedProjects.put(folder.projectHash, {
      ...project,
      productionUrl: result.project.productionUrl,
    });
    ctx.io.stdout.write(ctx.json ? jsonLine(result) : domainText(result));
  } finally {
    await handle.release();
  }
}
