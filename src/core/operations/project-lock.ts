import type { ProjectRecord } from "../ports/store.js";
import { ProjectNotFoundError } from "../errors.js";
import type { Services } from "./services.js";
import { callPlatform } from "./platform-call.js";

/**
 * Runs `work` under the project's lock with the project as it is now: a change that ran between
 * authorization and the lock (a domain change, a deletion) is seen, never overwritten with a stale
 * copy. A project deleted meanwhile (or deleted and its slug reused) answers 404.
 */
export async function withProjectLock<T>(
  services: Services,
  authorized: ProjectRecord,
  work: (current: ProjectRecord) => Promise<T>,
): Promise<T> {
  return services.locks.run(authorized.slug, async () => {
    const current = await services.store.getProject(authorized.slug);
    if (!current || current.tokenHash !== authorized.tokenHash) {
      throw new ProjectNotFoundError(`project ${authorized.slug} not found`);
    }
    return work(current);
  });
}

/**
 * Takes a project off the platform first (its hostnames answer 404 at once, its unshared content
 * is reclaimed), then deletes its metadata, which frees its hostnames. If the platform fails,
 * nothing was deleted and the request can be repeated.
 */
export async function removeProject(services: Services, slug: string): Promise<void> {
  await callPlatform(() => services.platform.unpublishProject(slug));
  await services.store.deleteProject(slug);
}
