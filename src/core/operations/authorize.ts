import type { ProjectRecord } from "../ports/store.js";
import {
  OwnershipMismatchError,
  ProjectExpiredError,
  ProjectNotFoundError,
  UnauthorizedError,
} from "../errors.js";
import { digestsEqual, sha256Hex } from "../ids.js";
import type { Services } from "./services.js";

/** The credentials every project route carries: bearer token and the two identity hashes. */
export interface ProjectCredentials {
  projectSlug: string;
  /** The raw bearer token, or undefined when the header was missing or malformed. */
  apiToken: string | undefined;
  projectHash: string;
  anonFingerprint: string;
  /**
   * The project `apiToken` belongs to, when the caller has authenticated it already (the API does
   * from the headers, before the body): not read again.
   */
  authenticated?: ProjectRecord;
}

/**
 * The project a bearer token belongs to; 401 when the token is missing, malformed or unknown. The
 * API calls it from the headers alone, before it reads a body (contract §5), and hands the project
 * to `authorize` (`authenticated`), which calls it only when given none.
 */
export async function authenticate(services: Services, apiToken: string | undefined): Promise<ProjectRecord> {
  if (!apiToken) throw new UnauthorizedError("missing bearer token");
  const tokenHash = sha256Hex(apiToken);
  const owner = await services.store.getProjectByTokenHash(tokenHash);
  if (!owner || !digestsEqual(owner.tokenHash, tokenHash))
    throw new UnauthorizedError("unknown bearer token");
  return owner;
}

/**
 * Checks a project route's credentials in the contract's order: a known token (401), the project
 * exists (404), token and identity are this project's (403), not expired (410, unless allowed).
 */
export async function authorize(
  services: Services,
  credentials: ProjectCredentials,
  options: { allowExpired?: boolean } = {},
): Promise<ProjectRecord> {
  const { store } = services;
  const owner = credentials.authenticated ?? (await authenticate(services, credentials.apiToken));
  // The token's own project is the row just read: the slug's is read only to tell 404 from 403.
  const project =
    owner.slug === credentials.projectSlug ? owner : await store.getProject(credentials.projectSlug);
  if (!project) throw new ProjectNotFoundError(`project ${credentials.projectSlug} not found`);
  const matches =
    owner.slug === project.slug &&
    digestsEqual(project.projectHash, credentials.projectHash.toLowerCase()) &&
    digestsEqual(project.anonFingerprint, credentials.anonFingerprint.toLowerCase());
  if (!matches) throw new OwnershipMismatchError();
  if (!options.allowExpired && isExpired(project, services.now())) throw new ProjectExpiredError();
  return project;
}

/** True once the project's expiry has passed. */
function isExpired(project: ProjectRecord, now: Date): boolean {
  return hasPassed(project.expiresAt, now);
}

/** True once an ISO timestamp is not in the future any more. */
export function hasPassed(timestamp: string, now: Date): boolean {
  return Date.parse(timestamp) <= now.getTime();
}
