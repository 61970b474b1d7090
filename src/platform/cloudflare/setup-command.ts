import { DeployError } from "../../core/errors.js";
import { setUpCloudflare } from "./setup.js";
import type { CloudflareSettings } from "./settings.js";

/** `deploy-server cloudflare setup`: prints what it did, or one error; returns the exit status. */
export async function cloudflareCommand(
  args: string[],
  config: { cloudflare?: CloudflareSettings; sitesDomain: string },
): Promise<number> {
  if (args[0] !== "setup" || args.length !== 1) {
    console.error("usage: deploy-server cloudflare setup");
    return 2;
  }
  if (config.cloudflare === undefined) {
    console.error("deploy-server: cloudflare setup needs PLATFORM=cloudflare and the CLOUDFLARE_* settings");
    return 2;
  }
  try {
    for (const line of await setUpCloudflare(config.cloudflare, config.sitesDomain)) console.log(line);
    return 0;
  } catch (error) {
    // Domain errors carry messages meant for operators; anything else is shown by its message only.
    console.error(
      `deploy-server: cloudflare setup failed: ${error instanceof DeployError ? error.message : String(error)}`,
    );
    return 1;
  }
}
