/**
 * The Deploy API's bodies as the client sees them. The ones the server names are its own types,
 * under its names, imported for their shape only (no runtime code), so client and server cannot
 * disagree on a field.
 */
import type { PublicProject } from "../../core/operations/services.js";

// Public project metadata (contract §3); the answers of prepare and deploy.
export type { PublicProject } from "../../core/operations/services.js";
export type { PreparedDeploy } from "../../core/operations/prepare-deploy.js";
export type { UnchangedDeploy } from "../../core/operations/unchanged-redeploy.js";
export type { CompletedDeploy } from "../../core/operations/complete-deploy.js";
export type { ServerLimits } from "../../core/operations/server-limits.js";
export type { ProjectState, PromotedRevision, RevisionSummary } from "../../core/operations/revisions.js";

/** The manifest of a prepare request: `/<slug>/<path>` → hash and size. */
export type Manifest = Record<string, { hash: string; size: number }>;

/** POST /projects → 201. */
export interface CreateProjectResult {
  project: PublicProject;
  apiToken: string;
}

/** POST /projects/:slug/domains and POST …/domains/check → 200. */
export interface DomainResult {
  domain: {
    hostname: string;
    cnameTarget: string;
    status: "pending" | "active";
    /** DNS records to create: the CNAME that routes the name, or the TXT record that proves control. */
    records: { type: "CNAME" | "TXT"; name: string; value: string }[];
    checkedAt: string | null;
    message: string | null;
    pendingUntil: string | null;
  };
  project: PublicProject;
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
