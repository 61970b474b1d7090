/**
 * The Deploy API's bodies as the client sees them. They are the server's own types, imported for
 * their shape only (no runtime code), so client and server cannot disagree on a field.
 */
import type { CompletedDeploy } from "../../core/operations/complete-deploy.js";
import type { PreparedDeploy } from "../../core/operations/prepare-deploy.js";
import type { PublicProject } from "../../core/services.js";

/** Public project metadata (contract §3). */
export type ProjectInfo = PublicProject;

/** The manifest of a prepare request: `/<slug>/<path>` → hash and size. */
export type Manifest = Record<string, { hash: string; size: number }>;

/** POST /projects → 201. */
export interface CreateProjectResult {
  project: ProjectInfo;
  apiToken: string;
}

/** POST /projects/:slug/prepare → 200. */
export type PrepareResult = PreparedDeploy;

/** POST /projects/:slug/deploy → 200. */
export type DeployResult = CompletedDeploy;

/** POST /projects/:slug/domains → 200. */
export interface DomainResult {
  domain: { hostname: string; cnameTarget: string };
  project: ProjectInfo;
}

/** DELETE /projects/:slug → 200. */
export interface DeleteResult {
  projectSlug: string;
  deleted: boolean;
}

/** The identity fields sent with every project request. */
export interface Identity {
  projectHash: string;
  anonFingerprint: string;
}
