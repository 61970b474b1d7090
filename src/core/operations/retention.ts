import type { ProjectRecord, RetentionPolicy } from "../ports/store.js";
import type { Services } from "./services.js";
import { callPlatform } from "./platform-call.js";

const PRUNE_BATCH = 500;

/** The retention policy as of now (contract §6). */
function policyOf(services: Services): RetentionPolicy {
  const { retention } = services.config;
  const keepAfter = new Date(services.now().getTime() - retention.minAgeSeconds * 1000);
  return { keep: retention.revisionsKept, keepAfter: keepAfter.toISOString(), max: retention.revisionsMax };
}

/**
 * Lets go of the revisions retention no longer keeps (beyond the last REVISIONS_KEPT of a project
 * and older than REVISION_MIN_AGE_DAYS or beyond its last REVISIONS_MAX, never the production
 * one), project by project under its lock: the platform forgets them first (their URLs answer 404
 * at once), then the store. Their content is reclaimed by the platform's sweep once nothing else
 * names it. Returns how many went.
 */
export async function pruneRevisions(services: Services): Promise<number> {
  const { store } = services;
  const policy = policyOf(services);
  let pruned = 0;
  for (;;) {
    const batch = await store.listPrunableRevisions(policy, PRUNE_BATCH);
    if (batch.length === 0) return pruned;
    const bySlug = new Map<string, string[]>();
    for (const { projectSlug, revisionId } of batch) {
      bySlug.set(projectSlug, [...(bySlug.get(projectSlug) ?? []), revisionId]);
    }
    let progress = 0;
    for (const [slug, revisionIds] of bySlug) {
      progress += await services.locks.run(slug, async () => {
        // Under the lock, the list is judged again: a promote meanwhile may have made one production.
        const project = await store.getProject(slug);
        return project ? forget(services, project, revisionIds) : 0;
      });
    }
    pruned += progress;
    // Nothing could go (each was made production meanwhile): stop rather than loop on the same rows.
    if (progress === 0 || batch.length < PRUNE_BATCH) return pruned;
  }
}

/**
 * Lets go, right after a deploy and under the project's lock (held by the caller), of the
 * project's revisions beyond its last REVISIONS_MAX, so that previews never keep more between two
 * sweeps. What age lets go is left to the sweep. Returns how many went.
 */
export async function pruneProjectRevisions(services: Services, project: ProjectRecord): Promise<number> {
  // No revision is older than the epoch: only the count can let one go here.
  const policy = { ...policyOf(services), keepAfter: new Date(0).toISOString(), projectSlug: project.slug };
  const doomed = await services.store.listPrunableRevisions(policy, PRUNE_BATCH);
  return forget(
    services,
    project,
    doomed.map((revision) => revision.revisionId),
  );
}

/** The platform forgets the revisions, then the store; never the project's production revision. */
async function forget(services: Services, project: ProjectRecord, revisionIds: string[]): Promise<number> {
  const doomed = revisionIds.filter((id) => id !== project.revisionId);
  if (doomed.length === 0) return 0;
  await callPlatform(() => services.platform.pruneRevisions(project.slug, doomed));
  return services.store.deleteRevisions(project.slug, doomed);
}
