import type { Services } from "./services.js";
import { authorize, type ProjectCredentials } from "./authorize.js";
import { removeProject, withProjectLock } from "./project-lock.js";

/** Deletes a project, expired or not: off the edge at once, then its metadata. */
export async function deleteProject(
  services: Services,
  input: ProjectCredentials,
): Promise<{ projectSlug: string; deleted: true }> {
  const project = await authorize(services, input, { allowExpired: true });
  await withProjectLock(services, project, () => removeProject(services, project.slug));
  return { projectSlug: project.slug, deleted: true };
}
