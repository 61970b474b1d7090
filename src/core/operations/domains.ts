import { HostnameConflictError } from "../../store/store.js";
import { DomainTakenError, InvalidDomainError, ProjectNotFoundError } from "../errors.js";
import { assertClaimable, normalizeHostname } from "../hostnames.js";
import { type PublicProject, type Services, toPublicProject } from "../services.js";
import { authorize, callPlatform, type ProjectCredentials } from "./authorize.js";

/** Assigns a hostname (generated vanity name or external) in place of the generated one. */
export async function assignDomain(
  services: Services,
  input: ProjectCredentials & { domain: string },
): Promise<{ domain: { hostname: string; cnameTarget: string }; project: PublicProject }> {
  const { store, config } = services;
  const project = await authorize(services, input);
  const hostname = normalizeHostname(input.domain);
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
  }
  const updated = await setHostname(services, input.projectSlug, custom);
  return { domain: { hostname, cnameTarget: config.sites.cnameTarget }, project: updated };
}

/** Drops the assigned hostname; the project answers on its generated hostname again. */
export async function resetDomain(
  services: Services,
  input: ProjectCredentials,
): Promise<{ project: PublicProject }> {
  await authorize(services, input);
  return { project: await setHostname(services, input.projectSlug, null) };
}

/**
 * Writes the hostname to the store, then routes it on the platform; if the platform fails, the
 * store is put back so the failed request changes nothing.
 */
async function setHostname(services: Services, slug: string, custom: string | null): Promise<PublicProject> {
  const { store, platform, config } = services;
  return services.locks.run(slug, async () => {
    const before = await store.getProject(slug);
    if (!before) throw new ProjectNotFoundError(`project ${slug} not found`);
    try {
      await store.setCustomHostname(slug, custom);
    } catch (error) {
      if (error instanceof HostnameConflictError)
        throw new DomainTakenError(`domain "${custom}" is held by another project`);
      throw error;
    }
    try {
      await callPlatform(() =>
        platform.updateSite(slug, {
          hostnames: [custom ?? before.generatedHostname],
          expiresAt: new Date(before.expiresAt),
        }),
      );
    } catch (error) {
      await store.setCustomHostname(slug, before.customHostname);
      throw error;
    }
    return toPublicProject({ ...before, customHostname: custom }, config.sites);
  });
}
