import type { DomainState, DomainStatus, ProjectRecord } from "../ports/store.js";
import { DomainNotAssignedError } from "../errors.js";
import { isUnderSitesDomain } from "../hostnames.js";
import { authorize, type ProjectCredentials } from "./authorize.js";
import { challengeRecord, type DnsRecord, lookForProof, recordsFor } from "./domain-proof.js";
import { callPlatform } from "./platform-call.js";
import { withProjectLock } from "./project-lock.js";
import {
  addSeconds,
  type ServiceConfig,
  type Services,
  toPublicProject,
  type PublicProject,
} from "./services.js";
import { siteSettings } from "./site-routing.js";

/** The `domain` of the domain responses (contract §3). */
export interface DomainView {
  hostname: string;
  cnameTarget: string;
  status: DomainStatus;
  /** The DNS records to create: a CNAME to route the name, or the TXT record that proves control. */
  records: DnsRecord[];
  /** When DNS was last asked and what it showed (or why it could not be asked). */
  checkedAt: string | null;
  message: string | null;
  /** When a pending claim lapses if DNS has not proven it by then. */
  pendingUntil: string | null;
}

/** The domain view of `hostname` for a project (its generated hostname or a vanity name: active, no records). */
export function domainView(services: Services, project: ProjectRecord, hostname: string): DomainView {
  const { sites } = services.config;
  const domain = project.customHostname === hostname ? project.domain : null;
  const external = !isUnderSitesDomain(hostname, sites);
  return {
    hostname,
    cnameTarget: sites.cnameTarget,
    status: domain?.status ?? "active",
    records: external ? recordsFor(project.slug, hostname, sites.cnameTarget) : [],
    checkedAt: domain?.checkedAt ?? null,
    message: domain?.message ?? null,
    pendingUntil: domain?.status === "pending" ? pendingUntil(domain, services.config).toISOString() : null,
  };
}

function pendingUntil(domain: DomainState, config: Pick<ServiceConfig, "domainPendingSeconds">): Date {
  return addSeconds(new Date(domain.claimedAt), config.domainPendingSeconds);
}

/** True once a pending claim has gone DOMAIN_PENDING_DAYS without proof. */
export function hasLapsed(
  domain: DomainState,
  now: Date,
  config: Pick<ServiceConfig, "domainPendingSeconds">,
): boolean {
  return domain.status === "pending" && pendingUntil(domain, config).getTime() <= now.getTime();
}

/**
 * Asks DNS about the project's pending custom hostname now and records what it found; proof makes
 * it active (and the generated hostname names it canonical). A pending claim past its period
 * that DNS still does not prove lapses. Returns the project as it is afterwards.
 */
export async function verifyDomain(services: Services, project: ProjectRecord): Promise<ProjectRecord> {
  const { store, platform, config } = services;
  const hostname = project.customHostname;
  if (hostname === null || project.domain?.status !== "pending") return project;
  // Asked before the lock: a slow resolver must not hold the project's other requests.
  const contested = project.domain.contestedAt !== undefined;
  const proof = await currentProof(services, project.slug, hostname, contested);
  return withProjectLock(services, project, async (current) => {
    if (current.customHostname !== hostname || current.domain?.status !== "pending") return current;
    const now = services.now();
    // Contested since DNS was asked: what it showed was judged by the rule of an uncontested claim.
    const proven = proof.proven && (contested || current.domain.contestedAt === undefined);
    if (!proven && hasLapsed(current.domain, now, config)) return lapse(services, current);
    const domain: DomainState = {
      ...current.domain,
      status: proven ? "active" : "pending",
      checkedAt: now.toISOString(),
      message: proof.message,
    };
    const after: ProjectRecord = { ...current, domain };
    // The platform first: a store that then fails leaves the name pending, and the next check
    // redoes both; the other order could record an active name the edge never heard of.
    if (proven) {
      await callPlatform(() =>
        platform.updateSite(current.slug, siteSettings(after, config.sites, new Date(current.expiresAt))),
      );
    }
    await store.recordDomainCheck(current.slug, hostname, { ...domain, checkedAt: domain.checkedAt! });
    return after;
  });
}

/**
 * Whether `hostname` is proven now: where the platform validates custom hostnames itself
 * (Cloudflare for SaaS), its word; else DNS showing the CNAME or this project's TXT record. A
 * contested claim (another project asked for the name too) needs this project's TXT record as
 * well: a CNAME shows the name points here, not which of the two its owner meant.
 */
async function currentProof(
  services: Services,
  slug: string,
  hostname: string,
  contested: boolean,
): Promise<{ proven: boolean; message: string }> {
  const { platform } = services;
  const validation =
    platform.customHostnameStatus === undefined
      ? undefined
      : await callPlatform(() => platform.customHostnameStatus!(hostname));
  if (validation && !contested) return { proven: validation.active, message: validation.message };
  const dns = await lookForProof(services.dns, slug, hostname, services.config.sites.cnameTarget);
  if (!contested) return { proven: dns.cname || dns.txt, message: dns.message };
  if (!dns.txt) {
    const txt = challengeRecord(slug, hostname);
    return {
      proven: false,
      message: `another project asked for ${hostname} too, so a CNAME does not show whose it is: create the TXT record ${txt.name} with the value ${txt.value}`,
    };
  }
  return validation
    ? { proven: validation.active, message: validation.message }
    : { proven: true, message: dns.message };
}

/** Drops a pending claim that lapsed: nothing was proven, so nothing is quarantined. Under the lock. */
async function lapse(services: Services, project: ProjectRecord): Promise<ProjectRecord> {
  const { store, platform, config } = services;
  const after: ProjectRecord = { ...project, customHostname: null, domain: null };
  await store.setCustomHostname(project.slug, null, { now: services.now().toISOString() });
  await callPlatform(() =>
    platform.updateSite(project.slug, siteSettings(after, config.sites, new Date(project.expiresAt))),
  );
  return after;
}

/** `POST /projects/:slug/domains/check`: checks the project's custom hostname now. */
export async function checkDomain(
  services: Services,
  input: ProjectCredentials,
): Promise<{ domain: DomainView; project: PublicProject }> {
  const project = await authorize(services, input);
  const hostname = project.customHostname;
  if (hostname === null) {
    throw new DomainNotAssignedError(`project ${project.slug} has no custom domain; assign one first`);
  }
  const after = await verifyDomain(services, project);
  if (after.customHostname === null) {
    throw new DomainNotAssignedError(
      `the claim on "${hostname}" lapsed: DNS did not prove it within ${Math.round(services.config.domainPendingSeconds / 86_400)} days; assign it again`,
    );
  }
  return {
    domain: domainView(services, after, hostname),
    project: toPublicProject(after, services.config.sites),
  };
}

const CHECK_BATCH = 100;

/**
 * The sweeper's part: asks DNS about the pending hostnames not checked for
 * DOMAIN_CHECK_INTERVAL_SECONDS (at most 100 a sweep), activating the proven ones and dropping
 * the claims that lapsed. Returns how many it checked, activated and dropped.
 */
export async function checkPendingDomains(
  services: Services,
): Promise<{ domainsChecked: number; domainsActivated: number; domainsLapsed: number }> {
  const now = services.now();
  const checkedBefore = addSeconds(now, -services.config.domainCheckIntervalSeconds).toISOString();
  const due = await services.store.listPendingDomains(checkedBefore, CHECK_BATCH);
  let domainsActivated = 0;
  let domainsLapsed = 0;
  for (const project of due) {
    try {
      const after = await verifyDomain(services, project);
      if (after.customHostname === null) domainsLapsed++;
      else if (after.domain?.status === "active") domainsActivated++;
    } catch {
      // A project deleted meanwhile, or a platform failure: the next sweep tries again.
    }
  }
  return { domainsChecked: due.length, domainsActivated, domainsLapsed };
}
