import type { CommandContext } from "../../context.js";
import { deployFolder } from "../../deploy/deploy-folder.js";
import { deployJson, deployText } from "./output.js";

/** `deploy [dir]`: deploys the folder and prints the URLs and figures. */
export async function deployCommand(ctx: CommandContext, dir: string): Promise<void> {
  const summary = await deployFolder(ctx, dir);
  ctx.io.stdout.write(ctx.json ? deployJson(summary) : deployText(summary));
}
