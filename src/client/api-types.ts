/** Public project metadata, as the deploy API returns it (contract §3). */
export interface ProjectInfo {
  projectSlug: string;
  hostname: string;
  generatedHostname: string;
  customHostname: string | null;
  productionUrl: string;
  revisionId: string | null;
  createdAt: string;
  expiresAt: string;
}

/** The manifest of a prepare request: `/<slug>/<path>` → hash and size. */
export type Manifest = Record<string, { hash: string; size: number }>;

/** POST /projects → 201. */
export interface CreateProjectResult {
  project: ProjectInfo;
  apiToken: string;
}

/** POST /projects/:slug/prepare → 200. */
export interface PrepareResult {
  deployId: string;
  accountId: string;
  revisionId: string;
  uploadJwt: string;
  buckets: string[][];
  project: ProjectInfo;
  urls: { upload: string; production: string; revision: string };
  expiresAt: string;
}

/** POST /projects/:slug/deploy → 200. */
export interface DeployResult {
  revisionId: string;
  productionUrl: string;
  revisionUrl: string;
  project: ProjectInfo;
}

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
