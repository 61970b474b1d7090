import { openProject, type CommandContext } from "../../context.js";
import { domainText, jsonLine, resetText } from "./output.js";

/**
 * `deploy domain <hostname>`, `deploy domain --check` and `deploy domain --reset`: assigns the
 * project's hostname (printing the DNS records to create), asks DNS about it now, or resets it.
 */
export async function domainCommand(
  ctx: CommandContext,
  dir: string,
  hostname: string | "check" | undefined,
): Promise<void> {
  const handle = await openProject(ctx, dir, { lock: true });
  try {
    const { project, api, folder } = handle;
    if (hostname === "check") {
      const result = await api.checkDomain(project.projectSlug, project.apiToken);
      ctx.io.stdout.write(ctx.json ? jsonLine(result) : domainText(result));
      return;
    }
    if (hostname === undefined) {
      const result = await api.resetDomain(project.projectSlug, project.apiToken);
      await folder?.savedProjects.put(folder.identityHash, {
        ...project,
        productionUrl: result.project.productionUrl,
      });
      ctx.io.stdout.write(ctx.json ? jsonLine(result) : resetText(result.project));
      return;
    }
    const result = await api.assignDomain(project.projectSlug, project.apiToken, hostname);
    await folder?.savedProjects.put(folder.identityHash, {
      ...project,
      productionUrl: result.project.productionUrl,
    });
    ctx.io.stdout.write(ctx.json ? jsonLine(result) : domainText(result));
  } finally {
    await handle.release();
  }
}
