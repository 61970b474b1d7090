import type { Services } from "../services.js";
import { authorize, callPlatform, type ProjectCredentials } from "./authorize.js";

/**
 * Deletes a project, expired or not: first off the edge (its hostnames answer 404 at once and its
 * unshared content is reclaimed), then its metadata, which frees its hostnames.
 */
export async function deleteProject(
  services: Services,
  input: ProjectCredentials,
): Promise<{ projectSlug: string; deleted: true }> {
  const project = await authorize(services, input, { allowExpired: true });
  await services.locks.run(project.slug, async () => {
    await callPlatform(() => services.platform.unpublishProject(project.slug));
    await services.store.deleteProject(project.slug);
  });
  return { projectSlug: project.slug, deleted: true };
}
