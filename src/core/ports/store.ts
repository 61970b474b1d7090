/** A project as the metadata store keeps it. Only the SHA-256 of its API token is kept. */
export interface ProjectRecord {
  slug: string;
  projectHash: string;
  anonFingerprint: string;
  tokenHash: string;
  generatedHostname: string;
  customHostname: string | null;
  /** The published revision, or null before the first completed deploy. */
  revisionId: string | null;
  createdAt: string;
  expiresAt: string;
}

/** A preparation record: created by prepare, completed by deploy. */
export interface DeployRecord {
  deployId: string;
  projectSlug: string;
  revisionId: string;
  /** The upload session the platform opened for this deploy. */
  sessionId: string;
  createdAt: string;
  expiresAt: string;
  completedAt: string | null;
  /** SHA-256 of the completion token that completed it, for idempotent retries. */
  completionHash: string | null;
}

export interface CompleteDeployInput {
  projectSlug: string;
  deployId: string;
  completionHash: string;
  completedAt: string;
  /** The project's new expiry, counted from this deploy. */
  projectExpiresAt: string;
}

/** Thrown by a store when a hostname is already held by another project. */
export class HostnameConflictError extends Error {
  constructor(readonly hostname: string) {
    super(`hostname ${hostname} is already held`);
  }
}

/**
 * The metadata store: projects, token hashes, deploys, revisions and hostnames. Every method that
 * changes more than one row does so in one transaction.
 */
export interface Store {
  /** Inserts a project; false when the slug is already taken. */
  createProject(project: ProjectRecord): Promise<boolean>;
  getProject(slug: string): Promise<ProjectRecord | undefined>;
  getProjectByTokenHash(tokenHash: string): Promise<ProjectRecord | undefined>;
  /** The project that holds `hostname`, as its generated or its custom hostname. */
  getProjectByHostname(hostname: string): Promise<ProjectRecord | undefined>;
  /** Sets or clears the custom hostname; throws HostnameConflictError if another project holds it. */
  setCustomHostname(slug: string, hostname: string | null): Promise<void>;
  /** Removes the project, its deploys and revisions; false when there was none. */
  deleteProject(slug: string): Promise<boolean>;

  createDeploy(deploy: DeployRecord): Promise<void>;
  getDeploy(projectSlug: string, deployId: string): Promise<DeployRecord | undefined>;
  /** Marks the deploy completed, records its revision and publishes it on the project, atomically. */
  completeDeploy(input: CompleteDeployInput): Promise<ProjectRecord>;

  /** Deletes uncompleted deploys that expired before `before`; returns how many. */
  deleteExpiredDeploys(before: string): Promise<number>;
  /** Slugs of projects whose expiry is before `before`, at most `limit`. */
  listProjectsExpiredBefore(before: string, limit: number): Promise<string[]>;

  /** Throws when the store cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
