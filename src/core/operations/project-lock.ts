import type { ProjectRecord } from "../ports/store.js";
import { ProjectNotFoundError } from "../errors.js";
import type { Services } from "./services.js";
import { releasesOf } from "./hostname-releases.js";
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
 * is reclaimed), then deletes its metadata and, in the same transaction, releases its hostnames:
 * its generated and vanity names are never reissued, a proven external name is quarantined. If the
 * platform fails, nothing was deleted and the request can be repeated. Call under the lock.
 */
export async function removeProject(services: Services, slug: string): Promise<void> {
  const project = await services.store.getProject(slug);
  await callPlatform(() => services.platform.unpublishProject(slug));
  if (!project) return;
  await services.store.deleteProject(slug, releasesOf(project, services.now(), services.config));
}
