import { CliError } from "../errors.js";
import { findProjectFile, type FoundProjectFile } from "./project-file.js";
import type { SavedProject, SavedProjects } from "./saved-projects.js";

/** The project a folder deploys to on this machine, and how the folder names it. */
export interface FolderLink {
  /** The saved project (with its token), or undefined when the folder has none yet. */
  saved: SavedProject | undefined;
  /** The projectHash the project's requests carry: the one it was created with. */
  identityHash: string;
  /** The project file that names the folder, if one does. */
  projectFile: FoundProjectFile | undefined;
}

/**
 * Finds a folder's project: the one its project file names (wherever the folder now is, so a moved
 * or cloned folder keeps it), else the one saved as made or last deployed from its path (as earlier
 * versions kept them all) and not unlinked. A new project takes the folder's own projectHash. A project file naming a project whose token this machine lacks, or another API, is an
 * error that says what to do: deploying would otherwise silently make a second project.
 */
export async function resolveFolderLink(
  savedProjects: SavedProjects,
  apiUrl: string,
  realDir: string,
  pathHash: string,
): Promise<FolderLink> {
  const projectFile = await findProjectFile(realDir);
  if (projectFile === undefined) {
    // A folder whose project was unlinked (its dir cleared) no longer names it.
    const byDir = await savedProjects.findByDir(apiUrl, realDir);
    return { saved: byDir?.project, identityHash: byDir?.projectHash ?? pathHash, projectFile };
  }
  const { project, apiUrl: fileApi } = projectFile.link;
  if (fileApi !== apiUrl) {
    throw new CliError(
      "LINKED_ELSEWHERE",
      `${projectFile.path} links ${realDir} to project ${project} on ${fileApi}, not on ${apiUrl}`,
      `Run with --api-url ${fileApi}, or \`deploy unlink\` to deploy this folder elsewhere.`,
    );
  }
  const held = await savedProjects.findBySlug(apiUrl, project);
  if (held === undefined) {
    throw new CliError(
      "PROJECT_NOT_HELD",
      `${projectFile.path} links ${realDir} to project ${project}, but this machine holds no token for it`,
      "Where it was created, `deploy credential` prints a credential: set DEPLOY_CREDENTIAL to it here. " +
        "Or `deploy unlink` to deploy this folder to a new project of its own.",
    );
  }
  return { saved: held.project, identityHash: held.projectHash, projectFile };
}
