import { InvalidRequestError, ManifestChangedError } from "../errors.js";
import type { ProjectRecord } from "../ports/store.js";
import { revisionUrl } from "../site-urls.js";
import { authorize, type ProjectCredentials } from "./authorize.js";
import { callPlatform } from "./platform-call.js";
import { withProjectLock } from "./project-lock.js";
import { type PublicProject, type Services, toPublicProject } from "./services.js";
import { projectExpiry } from "../project-expiry.js";
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
  // A project never deployed has no production revision: `production` is undefined, no match.
  const production =
    current.revisionId === null ? undefined : await store.getRevision(current.slug, current.revisionId);
  if (production?.manifestDigest !== digest) return undefined;
  const expiresAt = projectExpiry(services.now(), config.projectTtlSeconds);
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

/**
 * A prepare that names its manifest by digest alone (contract §3): the unchanged answer when
 * production was deployed from that manifest, else MANIFEST_CHANGED and nothing changes. The client
 * sends it when its files' stats are those of its last deploy, so a 50,000-file redeploy that
 * changed nothing neither reads its hash cache nor sends and parses a 4 MB manifest.
 */
export async function renewByDigest(
  services: Services,
  input: ProjectCredentials & { manifest: unknown; skipUnchanged?: boolean; manifestDigest: string },
): Promise<UnchangedDeploy> {
  // Formats first (contract §5), before the project and ownership.
  if (input.manifest !== undefined) {
    throw new InvalidRequestError("send either manifest or manifestDigest, not both");
  }
  if (input.skipUnchanged !== true) {
    throw new InvalidRequestError("manifestDigest is only accepted with skipUnchanged: true");
  }
  const project = await authorize(services, input);
  return withProjectLock(services, project, async (current) => {
    const unchanged = await renewIfUnchanged(services, current, input.manifestDigest);
    if (unchanged === undefined) throw new ManifestChangedError();
    return unchanged;
  });
}
