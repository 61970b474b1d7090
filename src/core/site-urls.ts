import { type HostnamePolicy, revisionHostname } from "./hostnames.js";

/** How public site URLs are written: scheme, public port (omitted when default), domains. */
export interface SitePolicy extends HostnamePolicy {
  scheme: "http" | "https";
  /** The edge's public port; undefined or the scheme's default port leaves it out of URLs. */
  publicPort: number | undefined;
}

/** `{scheme}://{hostname}{:port}/`. */
export function siteUrl(hostname: string, policy: SitePolicy): string {
  const port = policy.publicPort;
  const isDefault = port === undefined || (policy.scheme === "http" ? port === 80 : port === 443);
  return `${policy.scheme}://${hostname}${isDefault ? "" : `:${port}`}/`;
}

/**
 * The URL of a preview alias: `<alias>--<slug>.<SITES_DOMAIN>` (the revision host's form), which
 * serves the last revision deployed with that alias.
 */
export function aliasUrl(alias: string, slug: string, policy: SitePolicy): string {
  return siteUrl(revisionHostname(alias, slug, policy), policy);
}

/** The URL that serves one revision for as long as the project lives. */
export function revisionUrl(revisionId: string, slug: string, policy: SitePolicy): string {
  return siteUrl(revisionHostname(revisionId, slug, policy), policy);
}
