import type { HostnameRelease, ProjectRecord } from "../ports/store.js";
import { DomainTakenError, InvalidDomainError } from "../errors.js";
import { isUnderSitesDomain } from "../hostnames.js";
import { addSeconds, type ServiceConfig } from "./services.js";

/**
 * The record of a project giving up `hostname` at `now`: a name under SITES_DOMAIN is never
 * another project's (its old links must never lead elsewhere), an external one is withheld from
 * other projects for DOMAIN_QUARANTINE_DAYS (its DNS may still point here).
 */
export function releaseOf(
  hostname: string,
  projectSlug: string,
  now: Date,
  config: Pick<ServiceConfig, "sites" | "domainQuarantineSeconds">,
): HostnameRelease {
  return {
    hostname,
    projectSlug,
    releasedAt: now.toISOString(),
    withheldUntil: isUnderSitesDomain(hostname, config.sites)
      ? null
      : addSeconds(now, config.domainQuarantineSeconds).toISOString(),
  };
}

/**
 * The release of the custom hostname `project` gives up, if it is withheld at all: a claim DNS
 * never proved (pending) is not, since nothing shows its DNS points here, and withholding it
 * would let anyone block a name for DOMAIN_QUARANTINE_DAYS by claiming it and letting go.
 */
export function customRelease(
  project: Pick<ProjectRecord, "slug" | "customHostname" | "domain">,
  now: Date,
  config: Pick<ServiceConfig, "sites" | "domainQuarantineSeconds">,
): HostnameRelease | undefined {
  if (project.customHostname === null || project.domain?.status === "pending") return undefined;
  return releaseOf(project.customHostname, project.slug, now, config);
}

/** What a project releases when it goes (deletion or purge): its generated and proven custom hostnames. */
export function releasesOf(
  project: ProjectRecord,
  now: Date,
  config: Pick<ServiceConfig, "sites" | "domainQuarantineSeconds">,
): HostnameRelease[] {
  const custom = customRelease(project, now, config);
  const generated = releaseOf(project.generatedHostname, project.slug, now, config);
  return custom === undefined ? [generated] : [generated, custom];
}

/**
 * The refusal of a hostname another project released and is withheld: for ever (400
 * INVALID_DOMAIN, as another project's generated name is) or until its quarantine ends (409
 * DOMAIN_TAKEN, saying when).
 */
export function withheldError(release: HostnameRelease): InvalidDomainError | DomainTakenError {
  if (release.withheldUntil === null) {
    return new InvalidDomainError(
      `domain "${release.hostname}" is reserved: it was another project's hostname and is never reissued`,
    );
  }
  return new DomainTakenError(
    `domain "${release.hostname}" was released by another project and can be claimed from ${release.withheldUntil}`,
  );
}
