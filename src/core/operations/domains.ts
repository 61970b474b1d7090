import type { HostnameRelease, ProjectRecord } from "../ports/store.js";
import { HostnameConflictError, HostnameWithheldError, isWithheld } from "../ports/store.js";
import { DomainTakenError, InvalidDomainError } from "../errors.js";
import { assertClaimable } from "../hostnames.js";
import { normalizeHostname } from "../hostname-syntax.js";
import { type PublicProject, type Services, toPublicProject } from "./services.js";
import { authorize, type ProjectCredentials } from "./authorize.js";
import { releaseOf, withheldError } from "./hostname-releases.js";
import { callPlatform } from "./platform-call.js";
import { siteSettings } from "./site-routing.js";
import { withProjectLock } from "./project-lock.js";

/** Assigns a hostname (generated vanity name or external) in place of the generated one. */
export async function assignDomain(
  services: Services,
  input: ProjectCredentials & { domain: string },
): Promise<{ domain: { hostname: string; cnameTarget: string }; project: PublicProject }> {
  const { store, config } = services;
  // Formats first (contract §5): the hostname's shape is judged before the credentials.
  const hostname = normalizeHostname(input.domain);
  const project = await authorize(services, input);
  const custom = hostname === project.generatedHostname ? null : hostname;
  if (custom !== null) {
    assertClaimable(custom, config.sites);
    const holder = await store.getProjectByHostname(custom);
    if (holder && holder.slug !== project.slug) {
      if (holder.generatedHostname === custom) {
        throw new InvalidDomainError(
          `domain "${custom}" is reserved: it is another project's generated hostname`,
        );
      }
      throw new DomainTakenError(`domain "${custom}" is held by another project`);
    }
    // A name another project gave up: never reissued (under SITES_DOMAIN) or quarantined.
    const release = await store.getHostnameRelease(custom);
    if (release && isWithheld(release, project.slug, services.now().toISOString())) {
      throw withheldError(release);
    }
  }
  const updated = await setHostname(services, project, custom);
  return { domain: { hostname, cnameTarget: config.sites.cnameTarget }, project: updated };
}

/** Drops the assigned hostname; the project answers on its generated hostname again. */
export async function resetDomain(
  services: Services,
  input: ProjectCredentials,
): Promise<{ project: PublicProject }> {
  const project = await authorize(services, input);
  return { project: await setHostname(services, project, null) };
}

/**
 * Writes the hostname to the store (where uniqueness is enforced), then routes it on the platform;
 * if the platform fails, the store is put back so the failed request changes nothing.
 */
async function setHostname(
  services: Services,
  project: ProjectRecord,
  custom: string | null,
): Promise<PublicProject> {
  const { store, platform, config } = services;
  return withProjectLock(services, project, async (before) => {
    const now = services.now();
    // The custom hostname this change gives up, if any, is withheld from other projects.
    const released: HostnameRelease | undefined =
      before.customHostname !== null && before.customHostname !== custom
        ? releaseOf(before.customHostname, before.slug, now, config)
        : undefined;
    try {
      await store.setCustomHostname(before.slug, custom, { now: now.toISOString(), release: released });
    } catch (error) {
      if (error instanceof HostnameConflictError)
        throw new DomainTakenError(`domain "${custom}" is held by another project`);
      if (error instanceof HostnameWithheldError) throw withheldError(error.release);
      throw error;
    }
    try {
      await callPlatform(() =>
        platform.updateSite(
          before.slug,
          siteSettings({ ...before, customHostname: custom }, config.sites, new Date(before.expiresAt)),
        ),
      );
    } catch (error) {
      // Taking the old name back also forgets the release just recorded for it.
      await store.setCustomHostname(before.slug, before.customHostname, { now: now.toISOString() });
      throw error;
    }
    return toPublicProject({ ...before, customHostname: custom }, config.sites);
  });
}
