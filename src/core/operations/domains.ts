import type { DomainState, HostnameRelease, ProjectRecord } from "../ports/store.js";
import { HostnameConflictError, HostnameWithheldError, isWithheld } from "../ports/store.js";
import { DomainTakenError, InvalidDomainError } from "../errors.js";
import { assertClaimable, isUnderSitesDomain } from "../hostnames.js";
import { normalizeHostname } from "../hostname-syntax.js";
import { type PublicProject, type Services, toPublicProject } from "./services.js";
import { authorize, type ProjectCredentials } from "./authorize.js";
import { challengeRecord, type DnsProof, lookForProof } from "./domain-proof.js";
import { type DomainView, domainView, hasLapsed, verifyDomain } from "./domain-checks.js";
import { customRelease, withheldError } from "./hostname-releases.js";
import { callPlatform } from "./platform-call.js";
import { withProjectLock } from "./project-lock.js";
import { siteSettings } from "./site-routing.js";

/** The answer of POST domains and of a domain check (contract §3). */
export interface DomainResult {
  domain: DomainView;
  project: PublicProject;
}

/**
 * Assigns a hostname (a vanity name under SITES_DOMAIN, active at once, or an external one, pending
 * until DNS proves control) beside the generated one. DNS is asked before anything is written;
 * this project's TXT proof takes the name over from another project's claim or quarantine.
 */
export async function assignDomain(
  services: Services,
  input: ProjectCredentials & { domain: string },
): Promise<DomainResult> {
  const { config } = services;
  // Formats first (contract §5): the hostname's shape is judged before the credentials.
  const hostname = normalizeHostname(input.domain);
  const project = await authorize(services, input);
  if (hostname === project.generatedHostname) {
    const updated = await setHostname(services, project, null, null);
    return result(services, updated, hostname);
  }
  assertClaimable(hostname, config.sites);
  // The same name again keeps its claim (and its pending period) and checks DNS now.
  if (project.customHostname === hostname) {
    return result(services, await verifyDomain(services, project), hostname);
  }
  const external = !isUnderSitesDomain(hostname, config.sites);
  const proof = external
    ? await lookForProof(services.dns, project.slug, hostname, config.sites.cnameTarget)
    : undefined;
  const takeOver = await mayTakeOver(services, project, hostname, proof);
  // A platform that validates custom hostnames itself (Cloudflare for SaaS) decides when the
  // name is active; DNS still decides which project may claim it.
  const platformValidates = external && services.platform.customHostnameStatus !== undefined;
  const now = services.now().toISOString();
  const domain: DomainState = {
    status: proof === undefined || (!platformValidates && (proof.cname || proof.txt)) ? "active" : "pending",
    claimedAt: now,
    checkedAt: proof === undefined ? null : now,
    message: proof?.message ?? null,
  };
  const updated = await setHostname(services, project, hostname, domain, takeOver);
  return result(services, platformValidates ? await askPlatform(services, updated) : updated, hostname);
}

/**
 * The platform's first word on a name just assigned (it may have validated it before). The
 * assignment stands whatever it says: a failure here leaves the name pending for the next check.
 */
async function askPlatform(services: Services, project: ProjectRecord): Promise<ProjectRecord> {
  try {
    return await verifyDomain(services, project);
  } catch {
    return project;
  }
}

/** Drops the assigned hostname; the project answers on its generated hostname alone again. */
export async function resetDomain(
  services: Services,
  input: ProjectCredentials,
): Promise<{ project: PublicProject }> {
  const project = await authorize(services, input);
  const updated = await setHostname(services, project, null, null);
  return { project: toPublicProject(updated, services.config.sites) };
}

function result(services: Services, project: ProjectRecord, hostname: string): DomainResult {
  return {
    domain: domainView(services, project, hostname),
    project: toPublicProject(project, services.config.sites),
  };
}

/**
 * Whether another project's hold on `hostname` stands in the way: a generated name never yields,
 * a lapsed pending claim always does, any other claim or quarantine only to this project's TXT
 * proof (the slug whose claim is dropped), else 409 saying which record would prove control; a
 * pending claim so refused to another project is marked contested.
 */
async function mayTakeOver(
  services: Services,
  project: ProjectRecord,
  hostname: string,
  proof: DnsProof | undefined,
): Promise<string | undefined> {
  const { store } = services;
  const now = services.now();
  let takeOver: string | undefined;
  const holder = await store.getProjectByHostname(hostname);
  if (holder && holder.slug !== project.slug) {
    if (holder.generatedHostname === hostname) {
      throw new InvalidDomainError(
        `domain "${hostname}" is reserved: it is another project's generated hostname`,
      );
    }
    const lapsed = holder.domain?.status === "pending" && hasLapsed(holder.domain, now, services.config);
    if (!lapsed && !proof?.txt) {
      // Two projects want a name DNS has not proven: a CNAME its owner creates now would not say
      // which, so from now on only a TXT record activates the pending claim (contract §8).
      if (holder.domain?.status === "pending") {
        await store.markDomainContested(holder.slug, hostname, now.toISOString());
      }
      throw takenError(project.slug, hostname, "is held by another project");
    }
    takeOver = holder.slug;
  }
  // A name another project gave up: never reissued (under SITES_DOMAIN) or quarantined.
  const release = await store.getHostnameRelease(hostname);
  if (release && isWithheld(release, project.slug, now.toISOString())) {
    if (release.withheldUntil === null || !proof?.txt) {
      const error = withheldError(release);
      if (error instanceof DomainTakenError) throw takenError(project.slug, hostname, error.message, false);
      throw error;
    }
    takeOver ??= release.projectSlug;
  }
  return takeOver;
}

/** 409 DOMAIN_TAKEN, telling the TXT record that would prove this project's control of the name. */
function takenError(slug: string, hostname: string, why: string, prefix = true): DomainTakenError {
  const txt = challengeRecord(slug, hostname);
  const head = prefix ? `domain "${hostname}" ${why}` : why;
  return new DomainTakenError(
    `${head}; if it is yours, prove it: create a TXT record ${txt.name} with the value ${txt.value}, then assign it again`,
    { txtRecord: txt },
  );
}

/**
 * Writes the hostname to the store (where uniqueness is enforced), then routes it on the platform;
 * if the platform fails, the store is put back so the failed request changes nothing. A takeover
 * holds both projects' locks (in slug order, so two takeovers cannot wait on each other) and
 * takes the name off the other project's site too.
 */
async function setHostname(
  services: Services,
  project: ProjectRecord,
  custom: string | null,
  domain: DomainState | null,
  takeOver?: string,
): Promise<ProjectRecord> {
  const { store, platform, config } = services;
  return underLocks(services, project, takeOver, async (before) => {
    const now = services.now();
    // The custom hostname this change gives up, if DNS proved it, is withheld from other projects.
    const released: HostnameRelease | undefined =
      before.customHostname !== custom ? customRelease(before, now, config) : undefined;
    let takenFrom: string | undefined;
    try {
      const change = { now: now.toISOString(), release: released, takeOver: takeOver !== undefined };
      ({ takenFrom } = await store.setCustomHostname(before.slug, custom, {
        ...change,
        ...(domain ? { domain } : {}),
      }));
    } catch (error) {
      if (error instanceof HostnameConflictError)
        throw new DomainTakenError(`domain "${custom}" is held by another project`);
      if (error instanceof HostnameWithheldError) throw withheldError(error.release);
      throw error;
    }
    const after: ProjectRecord = { ...before, customHostname: custom, domain };
    try {
      await callPlatform(() =>
        platform.updateSite(before.slug, siteSettings(after, config.sites, new Date(before.expiresAt))),
      );
    } catch (error) {
      // Taking the old name back also forgets the release just recorded for it.
      await store.setCustomHostname(before.slug, before.customHostname, {
        now: now.toISOString(),
        ...(before.domain ? { domain: before.domain } : {}),
      });
      throw error;
    }
    const loser = takenFrom === undefined ? undefined : await store.getProject(takenFrom);
    if (loser) {
      await callPlatform(() =>
        platform.updateSite(loser.slug, siteSettings(loser, config.sites, new Date(loser.expiresAt))),
      );
    }
    return after;
  });
}

/** Runs `work` under the project's lock and, when `other` is given, that project's lock too. */
function underLocks<T>(
  services: Services,
  project: ProjectRecord,
  other: string | undefined,
  work: (current: ProjectRecord) => Promise<T>,
): Promise<T> {
  if (other === undefined || other === project.slug) return withProjectLock(services, project, work);
  if (other < project.slug) return services.locks.run(other, () => withProjectLock(services, project, work));
  return withProjectLock(services, project, (current) => services.locks.run(other, () => work(current)));
}
