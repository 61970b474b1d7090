import type { CommandContext } from "../../context.js";
import { deployFolder, type DeployOptions } from "../../deploy/deploy-folder.js";
import { deployJson, deployText } from "./output.js";

/** `deploy [dir]` and `deploy --preview [dir]`: deploys the folder and prints the URLs and figures. */
export async function deployCommand(ctx: CommandContext, dir: string, options: DeployOptions): Promise<void> {
  const summary = await deployFolder(ctx, dir, options);
  ctx.io.stdout.write(ctx.json ? deployJson(summary) : deployText(summary));
}
