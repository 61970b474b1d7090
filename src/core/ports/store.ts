/** A project as the metadata store keeps it. Only the SHA-256 of its API token is kept. */
export interface ProjectRecord {
  slug: string;
  projectHash: string;
  anonFingerprint: string;
  tokenHash: string;
  generatedHostname: string;
  customHostname: string | null;
  /** What DNS has shown of the custom hostname: null exactly when there is none. */
  domain: DomainState | null;
  /** The published revision, or null before the first completed deploy. */
  revisionId: string | null;
  createdAt: string;
  expiresAt: string;
  /** The client address that created it (CLIENT_QUOTA_BYTES); null when unknown (older projects). */
  createdBy?: string | null;
}

/** `pending` until DNS shows control of an external hostname; vanity names are `active` at once. */
export type DomainStatus = "pending" | "active";

/** The proof of a project's custom hostname (contract §8). */
export interface DomainState {
  status: DomainStatus;
  /** When this project claimed it: a pending claim lapses DOMAIN_PENDING_DAYS later. */
  claimedAt: string;
  /** When DNS was last asked, and what that check found (or why it could not look). */
  checkedAt: string | null;
  message: string | null;
  /**
   * When another project first asked for this name while the claim was pending: a CNAME then
   * proves nothing about which of them owns it, so only this project's TXT record activates it.
   */
  contestedAt?: string;
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
  /** Files of its manifest, and their bytes: what the revision will hold. */
  fileCount: number;
  byteCount: number;
  /** `manifestDigest` of its manifest (null for deploys recorded before digests were). */
  manifestDigest: string | null;
}

/** A kept revision of a project: a completed deploy. */
export interface RevisionRecord {
  revisionId: string;
  deployId: string;
  createdAt: string;
  fileCount: number;
  byteCount: number;
  /** Completed as a preview (production left where it was). */
  preview: boolean;
  /** Its deploy's manifest digest: equal digests, equal files (paths, hashes, sizes). */
  manifestDigest: string | null;
  /** The deploy's message (`message` of the deploy request), null without one. */
  message: string | null;
}

/**
 * Which revisions retention keeps: the last `keep` of each project and any created at or after
 * `keepAfter` while it is one of the project's last `max` (when given).
 */
export interface RetentionPolicy {
  keep: number;
  keepAfter: string;
  max?: number;
  /** Only this project's revisions (a deploy prunes its own). */
  projectSlug?: string;
}

export interface CompleteDeployInput {
  projectSlug: string;
  deployId: string;
  completionHash: string;
  completedAt: string;
  /** The project's new expiry, counted from this deploy. */
  projectExpiresAt: string;
  /** True records the revision without making it the production revision. */
  preview?: boolean;
  /** Stored with the revision (contract §3), at most DEPLOY_MESSAGE_MAX characters. */
  message?: string;
}

/**
 * A hostname a project gave up (a domain change, its deletion or its purge), withheld from every
 * other project: for ever (a tombstone, for names under SITES_DOMAIN) or until `withheldUntil` (a
 * quarantine, for external names). The project that released it may take it back.
 */
export interface HostnameRelease {
  hostname: string;
  /** The project that held it. */
  projectSlug: string;
  releasedAt: string;
  /** Null: never another project's; else the end of its quarantine. */
  withheldUntil: string | null;
}

/** True while `release` keeps its hostname from the project `slug` at `now` (ISO 8601). */
export function isWithheld(release: HostnameRelease, slug: string, now: string): boolean {
  if (release.projectSlug === slug) return false;
  return release.withheldUntil === null || Date.parse(release.withheldUntil) > Date.parse(now);
}

/** Thrown by a store when a hostname another project released is still withheld from this one. */
export class HostnameWithheldError extends Error {
  constructor(readonly release: HostnameRelease) {
    super(`hostname ${release.hostname} was released by another project and is withheld`);
  }
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
  /**
   * Inserts a project; false when the slug is already taken, or when its generated hostname was
   * released and is still withheld (a name once used is never given to another project).
   */
  createProject(project: ProjectRecord): Promise<boolean>;
  getProject(slug: string): Promise<ProjectRecord | undefined>;
  getProjectByTokenHash(tokenHash: string): Promise<ProjectRecord | undefined>;
  /** The project that holds `hostname`, as its generated or its custom hostname. */
  getProjectByHostname(hostname: string): Promise<ProjectRecord | undefined>;
  /**
   * Sets or clears the custom hostname with its proof (`domain`, default active since `now`) and,
   * in the same transaction, records `release` (the hostname it gives up). Throws
   * HostnameConflictError if another project holds the new one, and HostnameWithheldError if
   * another project released it and it is withheld at `now` (default: the current time). Taking
   * back a name this project released forgets that release. With `takeOver` (DNS proved this
   * project's control), another project's custom hostname or quarantine does not stand in the
   * way: that claim is dropped, and the slug it was taken from is returned.
   */
  setCustomHostname(
    slug: string,
    hostname: string | null,
    change?: { now?: string; release?: HostnameRelease; domain?: DomainState; takeOver?: boolean },
  ): Promise<{ takenFrom?: string }>;
  /**
   * Records a DNS check of the project's custom hostname, only while it is still `hostname`;
   * false when it has changed meanwhile.
   */
  recordDomainCheck(
    slug: string,
    hostname: string,
    check: { status: DomainStatus; checkedAt: string; message: string | null },
  ): Promise<boolean>;
  /**
   * Marks the project's pending claim on `hostname` contested at `at` (kept if it already was);
   * false when the project no longer holds it pending.
   */
  markDomainContested(slug: string, hostname: string, at: string): Promise<boolean>;
  /** Projects whose custom hostname is pending and was not checked since `checkedBefore`, least recently checked first. */
  listPendingDomains(checkedBefore: string, limit: number): Promise<ProjectRecord[]>;
  /** True when the project has recorded this revision. */
  hasRevision(slug: string, revisionId: string): Promise<boolean>;
  /** The last release of `hostname`, withheld or not any more; undefined when it was never released. */
  getHostnameRelease(hostname: string): Promise<HostnameRelease | undefined>;
  /**
   * Removes the project, its deploys and revisions, and records `releases` (the hostnames it
   * held), in one transaction; false when there was none.
   */
  deleteProject(slug: string, releases?: HostnameRelease[]): Promise<boolean>;

  createDeploy(deploy: DeployRecord): Promise<void>;
  getDeploy(projectSlug: string, deployId: string): Promise<DeployRecord | undefined>;
  /**
   * Marks the deploy completed, records its revision and (unless a preview) makes it the project's
   * revision, and moves the project's expiry, atomically.
   */
  completeDeploy(input: CompleteDeployInput): Promise<ProjectRecord>;

  /** Moves the project's expiry (an unchanged redeploy renews it as a deploy would); undefined when there is no such project. */
  renewProject(slug: string, expiresAt: string): Promise<ProjectRecord | undefined>;
  /** The project's kept revisions, newest first. */
  listRevisions(slug: string): Promise<RevisionRecord[]>;
  /** One kept revision of the project, or undefined. */
  getRevision(slug: string, revisionId: string): Promise<RevisionRecord | undefined>;
  /** Makes a kept revision the project's revision; undefined (nothing changed) when it has none such. */
  setProductionRevision(slug: string, revisionId: string): Promise<ProjectRecord | undefined>;
  /**
   * Revisions retention lets go, oldest first, at most `limit`: beyond the last `policy.keep` of
   * their project, and created before `policy.keepAfter` or beyond its last `policy.max`; never a
   * project's current revision.
   */
  listPrunableRevisions(
    policy: RetentionPolicy,
    limit: number,
  ): Promise<Array<{ projectSlug: string; revisionId: string }>>;
  /**
   * Deletes revisions of a project with their deploy records, in one transaction; the project's
   * current revision is never deleted. Returns how many went.
   */
  deleteRevisions(slug: string, revisionIds: string[]): Promise<number>;

  /** Deletes uncompleted deploys that expired before `before`; returns how many. */
  deleteExpiredDeploys(before: string): Promise<number>;
  /** Slugs of projects whose expiry is before `before`, at most `limit`. */
  listProjectsExpiredBefore(before: string, limit: number): Promise<string[]>;

  /** Throws when the store cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
