import type { Services } from "./services.js";
import { removeProject } from "./project-lock.js";
import { pruneRevisions } from "./retention.js";
import { checkPendingDomains } from "./domain-checks.js";

/** What one sweep did. */
export interface SweepResult {
  domainsChecked: number;
  domainsActivated: number;
  domainsLapsed: number;
  deploysExpired: number;
  projectsPurged: number;
  revisionsPruned: number;
  blobsDeleted: number;
  bytesFreed: number;
}

const PURGE_BATCH = 100;

/**
 * Purges what has expired: preparation records past their TTL, and projects expired for longer
 * than the grace period (taken off the platform, then deleted), and revisions retention lets go.
 * The platform then reclaims its own expired sessions and the content nothing names any more (the
 * pruned revisions' included) in `platform.sweep`.
 */
export async function sweepExpired(services: Services): Promise<SweepResult> {
  const { store, platform, config } = services;
  const now = services.now();
  const purgeBefore = new Date(now.getTime() - config.projectPurgeGraceSeconds * 1000).toISOString();
  // Expired preparations are kept through the grace period too, so completing one late keeps
  // answering 410 DEPLOY_EXPIRED (contract §6) rather than 404.
  const deploysExpired = await store.deleteExpiredDeploys(purgeBefore);
  let projectsPurged = 0;
  for (const slug of await store.listProjectsExpiredBefore(purgeBefore, PURGE_BATCH)) {
    await services.locks.run(slug, () => removeProject(services, slug));
    projectsPurged++;
  }
  const revisionsPruned = await pruneRevisions(services);
  const { blobsDeleted, bytesFreed } = await platform.sweep(now);
  const domains = await checkPendingDomains(services);
  return { ...domains, deploysExpired, projectsPurged, revisionsPruned, blobsDeleted, bytesFreed };
}
