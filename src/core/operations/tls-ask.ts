import { PREVIEW_ALIAS, REVISION_ID } from "../formats.js";
import { isUnderSitesDomain } from "../hostnames.js";
import { normalizeHostname } from "../hostname-syntax.js";
import type { ProjectRecord } from "../ports/store.js";
import type { Services } from "./services.js";

// `<revisionId>--<slug>` or `<alias>--<slug>`: neither a revision id nor an alias holds `--`.
const PINNED_LABEL = /^([a-z0-9-]+?)--([a-z0-9-]+)$/;

/**
 * Whether a certificate may be issued for `domain` (Caddy's on-demand TLS `ask`): only when a
 * live project serves it, as its generated hostname, its vanity name, one of its revision
 * hostnames or alias hosts, or its custom domain once DNS has proven it. A few indexed queries
 * (at most four, for a name shaped like a revision or alias host), so a flood of questions costs
 * little; anything else, malformed input included, is no.
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
    const match = PINNED_LABEL.exec(hostname.slice(0, -(sites.sitesDomain.length + 1)));
    // Not served as a revision or alias host: it may still be a name of its own (an IDN `xn--…`).
    if (match && (await servesPinned(services, match[1]!, match[2]!))) return true;
  }
  const project = await store.getProjectByHostname(hostname);
  if (!project || !isLive(services, project) || project.revisionId === null) return false;
  return project.generatedHostname === hostname || project.domain?.status === "active";
}

/** True when a live project `slug` serves `label` as a kept revision or as one of its aliases. */
async function servesPinned(services: Services, label: string, slug: string): Promise<boolean> {
  const project = await services.store.getProject(slug);
  if (project === undefined || !isLive(services, project)) return false;
  if (REVISION_ID.test(label)) return services.store.hasRevision(project.slug, label);
  const { platform } = services;
  if (!PREVIEW_ALIAS.test(label) || platform.aliasRevision === undefined) return false;
  return (await platform.aliasRevision(project.slug, label)) !== undefined;
}

function isLive(services: Services, project: ProjectRecord): boolean {
  return Date.parse(project.expiresAt) > services.now().getTime();
}
