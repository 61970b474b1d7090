import { InvalidDomainError } from "./errors.js";

/** Where generated hostnames live and which names are reserved (contract §8). */
export interface HostnamePolicy {
  sitesDomain: string;
  cnameTarget: string;
}

/** The generated hostname of a project: `<slug>.<SITES_DOMAIN>`. */
export function generatedHostname(slug: string, policy: HostnamePolicy): string {
  return `${slug}.${policy.sitesDomain}`;
}

/** The hostname that serves one revision: `<revisionId>--<slug>.<SITES_DOMAIN>`. */
export function revisionHostname(revisionId: string, slug: string, policy: HostnamePolicy): string {
  return `${revisionId}--${slug}.${policy.sitesDomain}`;
}

/**
 * Vanity names no project may claim under SITES_DOMAIN: names a visitor or a mail server would
 * take for the service's own (besides the CNAME target's first label, also reserved).
 */
export const RESERVED_LABELS: ReadonlySet<string> = new Set([
  "abuse",
  "account",
  "accounts",
  "admin",
  "administrator",
  "api",
  "app",
  "assets",
  "auth",
  "autoconfig",
  "autodiscover",
  "billing",
  "cdn",
  "console",
  "dashboard",
  "deploy",
  "dns",
  "docs",
  "edge",
  "ftp",
  "help",
  "hostmaster",
  "imap",
  "login",
  "mail",
  "metrics",
  "mx",
  "ns1",
  "ns2",
  "pop",
  "postmaster",
  "root",
  "security",
  "smtp",
  "static",
  "status",
  "support",
  "upload",
  "uploads",
  "webmail",
  "webmaster",
  "www",
]);

/** True when the hostname is under SITES_DOMAIN, at any depth: a name of this service's own. */
export function isUnderSitesDomain(hostname: string, policy: HostnamePolicy): boolean {
  return hostname.endsWith(`.${policy.sitesDomain}`);
}

/** True when the hostname is directly under SITES_DOMAIN with one label: a vanity name. */
function isGeneratedHostname(hostname: string, policy: HostnamePolicy): boolean {
  const suffix = `.${policy.sitesDomain}`;
  return hostname.endsWith(suffix) && !hostname.slice(0, -suffix.length).includes(".");
}

/**
 * Rejects the hostnames no project may claim: SITES_DOMAIN itself, the CNAME target, any label
 * with `--` (revision hosts), names deeper than one label under SITES_DOMAIN, and the reserved
 * vanity names (`RESERVED_LABELS` and the CNAME target's first label).
 */
export function assertClaimable(hostname: string, policy: HostnamePolicy): void {
  if (hostname === policy.sitesDomain || hostname === policy.cnameTarget) {
    throw new InvalidDomainError(`domain "${hostname}" is reserved`);
  }
  // Revision hosts use `--`; an IDN's A-label (`xn--…`) is the one form allowed to carry it.
  if (hostname.split(".").some((label) => label.replace(/^xn--/, "").includes("--"))) {
    throw new InvalidDomainError(`domain "${hostname}" is reserved: labels may not contain "--"`);
  }
  if (hostname.endsWith(`.${policy.sitesDomain}`) && !isGeneratedHostname(hostname, policy)) {
    throw new InvalidDomainError(
      `domain "${hostname}" is reserved: names under ${policy.sitesDomain} take one label`,
    );
  }
  if (isGeneratedHostname(hostname, policy)) {
    const label = hostname.slice(0, -(policy.sitesDomain.length + 1));
    if (RESERVED_LABELS.has(label) || label === policy.cnameTarget.split(".")[0]) {
      throw new InvalidDomainError(`domain "${hostname}" is reserved for the service itself`);
    }
  }
}
