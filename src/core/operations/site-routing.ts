import type { SiteSettings } from "../ports/platform.js";
import type { ProjectRecord } from "../ports/store.js";
import { siteUrl, type SitePolicy } from "../site-urls.js";

/**
 * Where a project's site answers (contract §7): its generated hostname always, and its assigned
 * one beside it, which the generated hostname names as canonical once it is active. The generated URL keeps
 * working while DNS for a new domain is being set up, and links already shared never break.
 */
export function siteSettings(project: ProjectRecord, policy: SitePolicy, expiresAt: Date): SiteSettings {
  const custom = project.customHostname;
  if (custom === null) return { hostnames: [project.generatedHostname], expiresAt };
  // Named canonical only once DNS has proven it: until then the generated URL is the one that works.
  if (project.domain?.status !== "active")
    return { hostnames: [project.generatedHostname, custom], expiresAt };
  return {
    hostnames: [project.generatedHostname, custom],
    canonical: { hostname: custom, url: siteUrl(custom, policy) },
    expiresAt,
  };
}
