import type { Services } from "./services.js";
import { callPlatform } from "./platform-call.js";

const PRUNE_BATCH = 500;

/**
 * Lets go of the revisions retention no longer keeps (beyond the last REVISIONS_KEPT of a project
 * and older than REVISION_MIN_AGE_DAYS, never the production one), project by project under its
 * lock: the platform forgets them first (their URLs answer 404 at once), then the store. Their
 * content is reclaimed by the platform's sweep once nothing else names it. Returns how many went.
 */
export async function pruneRevisions(services: Services): Promise<number> {
  const { store, platform, config } = services;
  const keepAfter = new Date(services.now().getTime() - config.retention.minAgeSeconds * 1000);
  const policy = { keep: config.retention.revisionsKept, keepAfter: keepAfter.toISOString() };
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
        const doomed = revisionIds.filter((id) => id !== project?.revisionId);
        if (doomed.length === 0) return 0;
        await callPlatform(() => platform.pruneRevisions(slug, doomed));
        return store.deleteRevisions(slug, doomed);
      });
    }
    pruned += progress;
    // Nothing could go (each was made production meanwhile): stop rather than loop on the same rows.
    if (progress === 0 || batch.length < PRUNE_BATCH) return pruned;
  }
}
