import { isUnderSitesDomain } from "../hostnames.js";
import { normalizeHostname } from "../hostname-syntax.js";
import type { ProjectRecord } from "../ports/store.js";
import type { Services } from "./services.js";

const REVISION_LABEL = /^([a-z0-9]{10})--([a-z0-9-]+)$/;

/**
 * Whether a certificate may be issued for `domain` (Caddy's on-demand TLS `ask`): only when a
 * live project serves it, as its generated hostname, its vanity name, one of its revision
 * hostnames, or its custom domain once DNS has proven it. One indexed query (two for a revision
 * host), so a flood of questions costs little; anything else, malformed input included, is no.
 */
export async function mayIssueCertificate(services: Services, domain: string): Promise<boolean> {
  let hostname: string;
  try {
    hostname = normalizeHostname(domain);
  } catch {
    return false;
  }
  const { store, config } = services;
  const sites = config.sites;
  if (isUnderSitesDomain(hostname, sites)) {
    const match = REVISION_LABEL.exec(hostname.slice(0, -(sites.sitesDomain.length + 1)));
    if (match) {
      const project = await store.getProject(match[2]!);
      return (
        project !== undefined &&
        isLive(services, project) &&
        (await store.hasRevision(project.slug, match[1]!))
      );
    }
  }
  const project = await store.getProjectByHostname(hostname);
  if (!project || !isLive(services, project) || project.revisionId === null) return false;
  return project.generatedHostname === hostname || project.domain?.status === "active";
}

function isLive(services: Services, project: ProjectRecord): boolean {
  return Date.parse(project.expiresAt) > services.now().getTime();
}
