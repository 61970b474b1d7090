import type { Role } from "../shared/observability/metrics.js";

/** Every role, in the order their listeners start. */
export const ALL_ROLES: readonly Role[] = ["api", "upload", "edge"];

/**
 * Reads ROLES ("api,upload,edge", any non-empty subset, in any order): the listeners this process
 * runs. Returns the roles, or what is wrong with the text.
 */
export function parseRoles(text: string): Role[] | string {
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (names.length === 0) return "must name at least one of api, upload, edge";
  const unknown = names.find((name) => !(ALL_ROLES as readonly string[]).includes(name));
  if (unknown !== undefined) return `unknown role "${unknown}": the roles are api, upload and edge`;
  return ALL_ROLES.filter((role) => names.includes(role));
}

/**
 * With Cloudflare as the platform only the API runs here: Cloudflare receives the uploads and
 * serves the sites. Returns what is wrong with `roles` there, or undefined.
 */
export function rolesOnCloudflare(roles: readonly Role[]): string | undefined {
  const local = roles.filter((role) => role !== "api");
  if (local.length === 0) return undefined;
  return `with PLATFORM=cloudflare a process runs only the api role (Cloudflare receives the uploads and serves the sites), not ${local.join(", ")}`;
}
