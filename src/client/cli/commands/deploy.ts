import type { CommandContext } from "../../context.js";
import { deployFolder, type DeployOptions } from "../../deploy/deploy-folder.js";
import { paintFor } from "../../paint.js";
import { deployJson, deployText } from "./output.js";

/** What `--prod` gets: it is the default here, the opposite of netlify-cli and vercel. */
export const PROD_NOTE =
  "Note: production is the default here, so --prod changes nothing; `deploy --preview` deploys without touching production.\n";

/** `deploy [dir]` and `deploy --preview [dir]`: deploys the folder and prints the URLs and figures. */
export async function deployCommand(ctx: CommandContext, dir: string, options: DeployOptions): Promise<void> {
  if (options.prod === true) ctx.io.stderr.write(PROD_NOTE);
  const summary = await deployFolder(ctx, dir, options);
  ctx.io.stdout.write(
    ctx.json ? deployJson(summary) : deployText(summary, paintFor(ctx.io.stdout, ctx.io.env)),
  );
}
