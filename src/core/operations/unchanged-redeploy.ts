import type { ProjectRecord } from "../ports/store.js";
import { revisionUrl } from "../site-urls.js";
import { callPlatform } from "./platform-call.js";
import { addSeconds, type PublicProject, type Services, toPublicProject } from "./services.js";
import { siteSettings } from "./site-routing.js";

/**
 * The prepare answer when the client asked to skip an unchanged deploy and production already
 * serves exactly this manifest: nothing to upload and nothing to publish (contract §3).
 */
export interface UnchangedDeploy {
  unchanged: true;
  revisionId: string;
  project: PublicProject;
  urls: { production: string; revision: string };
}

/**
 * When the project's production revision was deployed from a manifest with `digest`, renews the
 * project's expiry as a deploy would (the edge first, then the store, as a publish does) and
 * returns the answer; otherwise undefined and nothing changes. Called under the project's lock.
 */
export async function renewIfUnchanged(
  services: Services,
  current: ProjectRecord,
  digest: string,
): Promise<UnchangedDeploy | undefined> {
  const { store, platform, config } = services;
  if (current.revisionId === null) return undefined;
  const revisions = await store.listRevisions(current.slug);
  const production = revisions.find((revision) => revision.revisionId === current.revisionId);
  if (production?.manifestDigest !== digest) return undefined;
  const expiresAt = addSeconds(services.now(), config.projectTtlSeconds);
  await callPlatform(() => platform.updateSite(current.slug, siteSettings(current, config.sites, expiresAt)));
  const renewed = (await store.renewProject(current.slug, expiresAt.toISOString())) ?? current;
  const project = toPublicProject(renewed, config.sites);
  return {
    unchanged: true,
    revisionId: production.revisionId,
    project,
    urls: {
      production: project.productionUrl,
      revision: revisionUrl(production.revisionId, current.slug, config.sites),
    },
  };
}
