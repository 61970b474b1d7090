import type { Services } from "../services.js";

/** What one sweep did. */
export interface SweepResult {
  deploysExpired: number;
  projectsPurged: number;
}

const PURGE_BATCH = 100;

/**
 * Purges what has expired: preparation records past their TTL, and projects expired for longer
 * than the grace period (taken off the platform, then deleted). The platform reclaims its own
 * expired sessions and unreferenced content in `platform.sweep`.
 */
export async function sweepExpired(services: Services): Promise<SweepResult> {
  const { store, platform, config } = services;
  const now = services.now();
  const deploysExpired = await store.deleteExpiredDeploys(now.toISOString());
  const purgeBefore = new Date(now.getTime() - config.projectPurgeGraceSeconds * 1000).toISOString();
  let projectsPurged = 0;
  for (const slug of await store.listProjectsExpiredBefore(purgeBefore, PURGE_BATCH)) {
    await services.locks.run(slug, async () => {
      await platform.unpublishProject(slug);
      await store.deleteProject(slug);
    });
    projectsPurged++;
  }
  await platform.sweep(now);
  return { deploysExpired, projectsPurged };
}
