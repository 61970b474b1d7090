import { openFolder, requireRecord, type CommandContext } from "../../context.js";
import { domainText, jsonLine, resetText } from "./output.js";

/** `deploy domain <hostname>` and `deploy domain --reset`: assigns or resets the project's hostname. */
export async function domainCommand(
  ctx: CommandContext,
  dir: string,
  hostname: string | undefined,
): Promise<void> {
  const folder = await openFolder(ctx, dir);
  const record = requireRecord(folder, ctx.apiUrl);
  if (hostname === undefined) {
    const result = await folder.api.resetDomain(record.projectSlug, record.apiToken);
    await folder.store.put(folder.projectHash, { ...record, productionUrl: result.project.productionUrl });
    ctx.io.stdout.write(ctx.json ? jsonLine(result) : resetText(result.project));
    return;
  }
  const result = await folder.api.assignDomain(record.projectSlug, record.apiToken, hostname);
  await folder.store.put(folder.projectHash, { ...record, productionUrl: result.project.productionUrl });
  ctx.io.stdout.write(ctx.json ? jsonLine(result) : domainText(result));
}
