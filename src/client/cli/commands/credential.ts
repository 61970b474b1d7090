import { openProject, type CommandContext } from "../../context.js";
import { encodeCredential } from "../../local/credential.js";
import { CliError } from "../../errors.js";
import { jsonLine } from "./output.js";

/**
 * `deploy credential`: prints the one string another machine (CI) needs to act on the folder's
 * project. Checks with the server first that the project answers to it, so a credential that
 * cannot work is never handed out. Under DEPLOY_CREDENTIAL it refuses: that secret is never
 * printed back.
 */
export async function credentialCommand(ctx: CommandContext, dir: string): Promise<void> {
  if (ctx.credential !== undefined) {
    throw new CliError(
      "CREDENTIAL_IN_USE",
      "this run acts with DEPLOY_CREDENTIAL, which is never printed back",
      "Run `deploy credential` where the project was created, without DEPLOY_CREDENTIAL.",
    );
  }
  const handle = await openProject(ctx, dir, { lock: false });
  const folder = handle.folder!;
  const { projectSlug, apiToken } = handle.project;
  await handle.api.state(projectSlug, apiToken);
  const credential = encodeCredential({
    apiUrl: ctx.apiUrl,
    projectSlug,
    apiToken,
    projectHash: folder.identityHash,
    anonFingerprint: handle.api.identityFields.anonFingerprint,
  });
  if (ctx.json) {
    ctx.io.stdout.write(jsonLine({ credential, projectSlug }));
    return;
  }
  ctx.progress.note(
    `The credential of ${projectSlug}: keep it secret, it lets whoever holds it deploy to and delete the project.\n` +
      "In CI, store it as a secret and set DEPLOY_CREDENTIAL to it; then `deploy <dir>` deploys there.",
  );
  ctx.io.stdout.write(`${credential}\n`);
}
