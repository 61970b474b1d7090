import type { PublicProject } from "./net/api-types.js";

/** True while the project's custom hostname waits for DNS to prove it (contract §8). */
export function domainPending(project: PublicProject): boolean {
  return project.customHostname !== null && project.customHostnameStatus === "pending";
}

/**
 * The production URL that serves now: the custom hostname's once it is active, else the generated
 * hostname's (a pending name gets no certificate and may not point here yet).
 */
export function servingUrl(project: PublicProject): string {
  if (!domainPending(project)) return project.productionUrl;
  const url = new URL(project.productionUrl);
  url.hostname = project.generatedHostname;
  return url.href;
}

/** `{ pendingDomain }` for a deploy summary while the custom hostname is pending, else nothing. */
export function pendingDomain(project: PublicProject): {
  pendingDomain?: { hostname: string; servingUrl: string };
} {
  if (!domainPending(project)) return {};
  return { pendingDomain: { hostname: project.customHostname!, servingUrl: servingUrl(project) } };
}
