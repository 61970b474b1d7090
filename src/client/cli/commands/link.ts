import { isProjectSlug } from "../../../core/formats.js";
import type { CommandContext } from "../../context.js";
import { CliError, UsageError } from "../../errors.js";
import { configDir } from "../../local/config-dir.js";
import { anonFingerprint, resolveSiteDir } from "../../local/identity.js";
import { findProjectFile, removeProjectFile, writeProjectFile } from "../../local/project-file.js";
import { SavedProjects } from "../../local/saved-projects.js";
import { ApiClient } from "../../net/api-client.js";
import { retryNote } from "../../context.js";
import { jsonLine } from "./output.js";

/**
 * `deploy link <project>`: attaches the folder to a project this machine holds the token of
 * (checked with the server first), by writing the folder's project file; the folder's deploys go
 * there from then on, wherever the folder is moved or cloned.
 */
export async function linkCommand(ctx: CommandContext, dir: string, projectSlug: string): Promise<void> {
  if (!isProjectSlug(projectSlug)) {
    throw new UsageError(`"${projectSlug}" is not a project name`, "`deploy projects` lists the projects.");
  }
  const realDir = await resolveSiteDir(ctx.io.cwd, dir);
  const config = configDir(ctx.io.env);
  const saved = new SavedProjects(config);
  const held = await saved.findBySlug(ctx.apiUrl, projectSlug);
  if (held === undefined) {
    throw new CliError(
      "NO_PROJECT",
      `this machine holds no token for project ${projectSlug} on ${ctx.apiUrl}`,
      "`deploy projects` lists those it holds; a project made elsewhere is deployed with DEPLOY_CREDENTIAL.",
    );
  }
  const identity = { projectHash: held.projectHash, anonFingerprint: await anonFingerprint(config) };
  const api = new ApiClient(ctx.apiUrl, identity, ctx.retry, retryNote(ctx.progress));
  const state = await api.state(projectSlug, held.project.apiToken);
  const before = await findProjectFile(realDir).catch(() => undefined);
  const path = await writeProjectFile(realDir, { project: projectSlug, apiUrl: ctx.apiUrl });
  await saved.put(held.projectHash, { ...held.project, dir: realDir });
  const productionUrl = state.project.productionUrl;
  if (ctx.json) {
    ctx.io.stdout.write(jsonLine({ projectSlug, productionUrl, dir: realDir, projectFile: path }));
    return;
  }
  const was =
    before !== undefined && before.link.project !== projectSlug ? ` (was ${before.link.project})` : "";
  ctx.io.stdout.write(
    `Linked ${realDir} to project ${projectSlug}${was}\n  Production: ${productionUrl}\n  Project file: ${path} (no secret: commit it)\n`,
  );
}

/**
 * `deploy unlink`: detaches the folder from its project: removes the project file that names it and
 * the path earlier versions remembered it by. The token is kept: `deploy projects` still lists the
 * project and `deploy link` attaches it again; the folder's next deploy makes a new project.
 */
export async function unlinkCommand(ctx: CommandContext, dir: string): Promise<void> {
  const realDir = await resolveSiteDir(ctx.io.cwd, dir);
  const saved = new SavedProjects(configDir(ctx.io.env));
  const file = await findProjectFile(realDir);
  const attached = await saved.findByDir(ctx.apiUrl, realDir);
  const projectSlug = file?.link.project ?? attached?.project.projectSlug;
  if (projectSlug === undefined) {
    throw new CliError("NO_PROJECT", `${realDir} is not linked to a project on ${ctx.apiUrl}`);
  }
  if (file !== undefined) await removeProjectFile(file);
  // Every record that names the folder forgets it; the tokens stay.
  for (const held of await saved.list()) {
    if (held.project.dir === realDir) await saved.put(held.projectHash, { ...held.project, dir: "" });
  }
  if (ctx.json) {
    ctx.io.stdout.write(jsonLine({ projectSlug, dir: realDir, unlinked: true }));
    return;
  }
  ctx.io.stdout.write(
    `Unlinked ${realDir} from project ${projectSlug}; its token is kept (\`deploy link ${projectSlug}\` attaches it again).\n` +
      "The folder's next deploy creates a new project.\n",
  );
}
