import type { DnsLookup } from "../ports/dns.js";
import type { Locks } from "../ports/locks.js";
import type { Platform } from "../ports/platform.js";
import type { DomainStatus, ProjectRecord, Store } from "../ports/store.js";
import { KeyedLock } from "../../shared/keyed-lock.js";
import { type Clock, systemClock } from "../clock.js";
import type { ManifestLimits } from "../manifest.js";
import { type SitePolicy, siteUrl } from "../site-urls.js";

/** Settings the operations need, read from the environment by the server. */
export interface ServiceConfig {
  sites: SitePolicy;
  deployTtlSeconds: number;
  projectTtlSeconds: number;
  /** How long an expired project is kept (not served, still deletable) before it is purged. */
  projectPurgeGraceSeconds: number;
  /** How long an external hostname a project released is withheld from other projects. */
  domainQuarantineSeconds: number;
  /**
   * Revisions kept per project: the last `revisionsKept`, and any younger than `minAgeSeconds`
   * while it is one of the last `revisionsMax` (default: no such bound).
   */
  retention: { revisionsKept: number; minAgeSeconds: number; revisionsMax?: number };
  /** How long a claim on an external hostname may stay pending (no DNS proof) before it lapses. */
  domainPendingSeconds: number;
  /** How long the sweeper leaves a pending hostname before asking DNS about it again. */
  domainCheckIntervalSeconds: number;
  limits: ManifestLimits;
  /** Storage quotas the platform enforces at prepare (contract §1); 0 switches one off. */
  quotas: { projectBytes: number; pendingBytes: number; clientBytes: number };
}

/** What every operation works with: the two ports, the settings, a clock and per-project locks. */
export interface Services {
  store: Store;
  platform: Platform;
  /** Where custom hostnames are proven (contract §8). */
  dns: DnsLookup;
  config: ServiceConfig;
  now: () => Date;
  locks: Locks;
}

/**
 * Builds the services bundle on `clock` (the system's by default), with `locks` (in-memory ones,
 * for one process, by default).
 */
export function createServices(
  deps: Omit<Services, "locks" | "now"> & { clock?: Clock; locks?: Locks },
): Services {
  const { clock = systemClock, locks = new KeyedLock(), ...rest } = deps;
  return { ...rest, now: () => new Date(clock.now()), locks };
}

/** Public project metadata (contract §3), the `project` member of responses. */
export interface PublicProject {
  projectSlug: string;
  hostname: string;
  generatedHostname: string;
  customHostname: string | null;
  /** `pending` until DNS proves control of the custom hostname, then `active`; null without one. */
  customHostnameStatus: DomainStatus | null;
  productionUrl: string;
  revisionId: string | null;
  createdAt: string;
  expiresAt: string;
}

/** The hostname a project answers on in production: the assigned one, else the generated one. */
export function productionHostname(project: ProjectRecord): string {
  return project.customHostname ?? project.generatedHostname;
}

/** The public view of a project; never carries its token hash or identity hashes. */
export function toPublicProject(project: ProjectRecord, policy: SitePolicy): PublicProject {
  const hostname = productionHostname(project);
  return {
    projectSlug: project.slug,
    hostname,
    generatedHostname: project.generatedHostname,
    customHostname: project.customHostname,
    customHostnameStatus: project.domain?.status ?? null,
    productionUrl: siteUrl(hostname, policy),
    revisionId: project.revisionId,
    createdAt: project.createdAt,
    expiresAt: project.expiresAt,
  };
}

/** `seconds` after `from`, as a Date. */
export function addSeconds(from: Date, seconds: number): Date {
  return new Date(from.getTime() + seconds * 1000);
}
