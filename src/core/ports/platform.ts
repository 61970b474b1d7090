import type { ManifestEntry } from "../manifest.js";
import type { PathOrder } from "../checked-manifest.js";
import type { RulesFiles } from "../site-rules/index.js";

/** What prepare hands the client: where and how to upload what the platform lacks. */
export interface UploadSession {
  sessionId: string;
  accountId: string;
  /** Credential for the upload service; when `buckets` is empty it is also the completion token. */
  uploadJwt: string;
  /** Hashes the platform does not hold yet, each once, grouped under the bucket size. */
  buckets: string[][];
  /** Full URL of the bucket-upload endpoint. */
  uploadUrl: string;
  expiresAt: Date;
}

/** The site a project publishes: where it answers and until when. */
export interface SiteSettings {
  /** Production hostnames: the generated one, and the assigned one beside it. */
  hostnames: string[];
  /**
   * The hostname search engines should index and its URL (`https://www.example.com/`): every
   * other hostname of the site names it in a `Link: <…>; rel="canonical"` header.
   */
  canonical?: { hostname: string; url: string };
  expiresAt: Date;
}

export interface PublishInput extends SiteSettings {
  projectSlug: string;
  revisionId: string;
  sessionId: string;
  completionJwt: string;
  /** True publishes a preview: served on its revision URL, production left where it was. */
  preview?: boolean;
  /**
   * The site's `_redirects` and `_headers` as the client sent them at deploy. A platform that never
   * sees asset bytes (Cloudflare) takes them from here, checked against the manifest's hashes;
   * the built-in platform reads the files it holds.
   */
  siteRules?: Partial<RulesFiles>;
  /**
   * A preview alias (contract §3): `<alias>--<slug>.<domain>` serves this revision from now on.
   * A project has at most MAX_ALIASES; one more is refused (AliasLimitError) before anything is
   * published.
   */
  alias?: string;
}

/** Most preview aliases a project may have (`deploy --alias`). */
export const MAX_ALIASES = 20;

/** What a prepare asks of a platform: a session for a project's manifest. */
export interface UploadSessionRequest {
  projectSlug: string;
  entries: ManifestEntry[];
  expiresAt: Date;
  /** The address of the client that prepares it, whose pending bytes it counts against. */
  clientAddress?: string;
  /** The client address that created the project, and when: its client quota's (when known). */
  owner?: { clientAddress: string; createdAt: Date };
  /**
   * `manifestDigest` of `entries` (core/manifest-digest.ts), when the caller has it: a platform
   * may store a manifest once per project and digest, shared by the revisions that have it.
   */
  manifestDigest?: string;
  /** `entries` in the order of their paths, when the caller has them (sorted away). */
  byPath?: PathOrder;
}

/**
 * The edge platform, shaped like Cloudflare's Workers static-assets flow: open an upload session
 * for a manifest, redeem its completion token by publishing a revision, route hostnames, unpublish.
 * Implementations throw InvalidCompletionError, QuotaExceededError, InsufficientStorageError,
 * InvalidSiteConfigError and UploadPlatformError from core/errors.
 */
export interface Platform {
  /** Which platform serves the sites (`GET /limits` tells the client); absent: the built-in one. */
  readonly kind?: "cloudflare";
  /**
   * Opens a session for a manifest. Refuses (QuotaExceededError) what would take the project past
   * its quota across its kept revisions, its `owner` past the quota of the projects it created, or
   * `clientAddress` past its quota of bytes prepared and not deployed; refuses (InsufficientStorageError) uploads the storage has no room for.
   */
  openUploadSession(input: UploadSessionRequest): Promise<UploadSession>;
  /** Checks the completion token against the session and that every asset is held, parses the
   * site's `_redirects` and `_headers` (InvalidSiteConfigError when one does not parse: nothing is
   * published), then publishes the revision and makes it the project's production revision in one
   * step. Idempotent. */
  publishRevision(input: PublishInput): Promise<void>;
  /**
   * Makes a published revision the one the project's hostnames serve, in one step (the edge
   * switches on its next request). Idempotent. RevisionNotFoundError when it holds no such revision.
   */
  promoteRevision(projectSlug: string, revisionId: string): Promise<void>;
  /**
   * Forgets revisions of a project: their URLs answer 404 at once. The production revision is never
   * forgotten. Their content is reclaimed by `sweep` once nothing else names it. Idempotent.
   */
  pruneRevisions(projectSlug: string, revisionIds: string[]): Promise<void>;
  /** Changes where and until when a published project answers. */
  updateSite(projectSlug: string, settings: SiteSettings): Promise<void>;
  /** Takes a project off the edge at once: its hostnames, revisions and sessions. */
  unpublishProject(projectSlug: string): Promise<void>;
  /** Reclaims expired upload sessions and content that nothing references any more. */
  sweep(now: Date): Promise<{ blobsDeleted: number; bytesFreed: number }>;
  /**
   * Where the platform validates custom hostnames itself (Cloudflare for SaaS): whether it has
   * validated `hostname`, and what it says. A domain's status follows this instead of the DNS check.
   * Asks for the hostname again if the platform does not hold it.
   */
  customHostnameStatus?(hostname: string): Promise<{ active: boolean; message: string }>;
  /**
   * The revision a project's preview alias serves now, or undefined: how `/tls/ask` knows an alias
   * host. A platform that issues its own certificates (Cloudflare) need not have it.
   */
  aliasRevision?(projectSlug: string, alias: string): Promise<string | undefined>;
  /** Throws when the platform cannot answer. */
  check(): Promise<void>;
  /** What else the platform depends on (say, an object store), by name, each check throwing when down. */
  dependencyChecks?(): Record<string, () => Promise<void>>;
  close(): Promise<void>;
}
