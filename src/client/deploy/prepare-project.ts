import { PROJECT_GONE_CODES } from "../net/api-client.js";
import type { Manifest, PreparedDeploy, UnchangedDeploy } from "../net/api-types.js";
import type { CommandContext, FolderProject } from "../context.js";
import { ApiError, CliError } from "../errors.js";
import type { SavedProject } from "../local/saved-projects.js";
import { plural } from "../format.js";

/** The project a deploy goes to, its first prepare answer, and the project it replaced if any. */
interface PreparedProject {
  project: SavedProject;
  /** Unchanged only when `skipUnchanged` was asked and production already serves the manifest. */
  prepared: PreparedDeploy | UnchangedDeploy;
  previousProjectSlug: string | undefined;
}

/**
 * Prepares the deploy on the folder's project, creating the project on the first deploy. When the
 * saved project is gone (expired, deleted, purged), creates a new one and says the URL changed.
 * With `skipUnchanged`, a manifest production already serves is answered as unchanged.
 */
export async function prepareProject(
  ctx: CommandContext,
  folder: FolderProject,
  manifestFor: (project: SavedProject) => Manifest,
  skipUnchanged: boolean,
): Promise<PreparedProject> {
  const saved = folder.saved;
  const prepare = (project: SavedProject) => {
    const manifest = manifestFor(project);
    ctx.progress.step(`Preparing the deploy (${plural(Object.keys(manifest).length, "file")})`);
    return skipUnchanged
      ? folder.api.prepareUnlessUnchanged(project.projectSlug, project.apiToken, manifest)
      : folder.api.prepare(project.projectSlug, project.apiToken, manifest);
  };
  if (saved === undefined) {
    const project = await createProject(ctx, folder);
    const prepared = await prepare(project);
    return { project, prepared, previousProjectSlug: undefined };
  }
  try {
    const prepared = await prepare(saved);
    return { project: saved, prepared, previousProjectSlug: undefined };
  } catch (error) {
    if (!(error instanceof ApiError && PROJECT_GONE_CODES.has(error.code))) throw error;
    if (folder.fromCredential) {
      // The credential names one project: making another would deploy where nobody looks.
      throw new CliError(
        "PROJECT_GONE",
        `DEPLOY_CREDENTIAL's project ${saved.projectSlug} cannot be deployed to: ${error.message}`,
        "Make a new credential with `deploy credential` where the project was created.",
      );
    }
    const why = error.code === "PROJECT_EXPIRED" ? "has expired" : "no longer exists";
    const project = await createProject(ctx, folder);
    // The old project is gone: its record would only name the folder twice.
    await folder.savedProjects.remove(ctx.apiUrl, saved.projectSlug);
    ctx.progress.note(
      `The project ${saved.projectSlug} ${why}; created a new project, ${project.projectSlug}. ` +
        `The site's URL changed: it is now ${project.productionUrl}`,
    );
    const prepared = await prepare(project);
    return { project, prepared, previousProjectSlug: saved.projectSlug };
  }
}

/** Creates a project for the folder and stores its token at once, so a later failure loses nothing. */
async function createProject(ctx: CommandContext, folder: FolderProject): Promise<SavedProject> {
  ctx.progress.step("Creating the project");
  const created = await folder.api.createProject();
  const project: SavedProject = {
    projectSlug: created.project.projectSlug,
    apiToken: created.apiToken,
    apiUrl: ctx.apiUrl,
    dir: folder.realDir,
    productionUrl: created.project.productionUrl,
    createdAt: created.project.createdAt,
  };
  await folder.savedProjects.put(folder.identityHash, project);
  // The phase's result: its line is not drawn again under it (a note would redraw "Creating…").
  ctx.progress.finish(`Created project ${project.projectSlug} for ${folder.realDir}`);
  return project;
}
