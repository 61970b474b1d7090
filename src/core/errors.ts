/** Every error code of the contract (§5); `api/error-response.ts` gives each its HTTP status. */
export type ErrorCode =
  | "INVALID_JSON"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "INVALID_REQUEST"
  | "INVALID_PROJECT_HASH"
  | "INVALID_FINGERPRINT"
  | "INVALID_MANIFEST"
  | "INVALID_DOMAIN"
  | "UNAUTHORIZED"
  | "OWNERSHIP_MISMATCH"
  | "PROJECT_NOT_FOUND"
  | "DEPLOY_NOT_FOUND"
  | "REVISION_NOT_FOUND"
  | "DOMAIN_TAKEN"
  | "DOMAIN_NOT_ASSIGNED"
  | "DEPLOY_ALREADY_COMPLETED"
  | "MANIFEST_CHANGED"
  | "PROJECT_EXPIRED"
  | "DEPLOY_EXPIRED"
  | "INVALID_COMPLETION"
  | "REQUEST_TIMEOUT"
  | "PAYLOAD_TOO_LARGE"
  | "RATE_LIMITED"
  | "UPLOAD_PLATFORM_ERROR"
  | "SERVER_BUSY"
  | "SERVER_STARTING"
  | "DATABASE_UNAVAILABLE"
  | "QUOTA_EXCEEDED"
  | "INSUFFICIENT_STORAGE"
  | "INVALID_SITE_CONFIG"
  | "ALIAS_LIMIT"
  | "OBJECT_STORE_UNAVAILABLE"
  | "INTERNAL";

/**
 * Domain errors: one subclass per condition of the contract (§5), each with a stable code. They
 * say what went wrong, not how HTTP reports it: `api/error-response.ts` maps codes to statuses.
 */
export class DeployError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

const define = (code: ErrorCode, fallback: string) =>
  class extends DeployError {
    constructor(message: string = fallback, options?: { cause?: unknown }) {
      super(code, message, options);
    }
  };

export class InvalidJsonError extends define("INVALID_JSON", "request body must be a JSON object") {}
export class UnsupportedMediaTypeError extends define(
  "UNSUPPORTED_MEDIA_TYPE",
  "Content-Type must be application/json",
) {}
export class InvalidRequestError extends define("INVALID_REQUEST", "invalid request") {}
export class InvalidProjectHashError extends define(
  "INVALID_PROJECT_HASH",
  "projectHash must be 64 hexadecimal characters",
) {}
export class InvalidFingerprintError extends define(
  "INVALID_FINGERPRINT",
  "anonFingerprint must be 64 hexadecimal characters",
) {}
export class InvalidManifestError extends define("INVALID_MANIFEST", "invalid manifest") {}
export class InvalidDomainError extends define("INVALID_DOMAIN", "invalid hostname") {}
export class UnauthorizedError extends define("UNAUTHORIZED", "missing or unknown bearer token") {}
export class OwnershipMismatchError extends define(
  "OWNERSHIP_MISMATCH",
  "credentials do not belong to this project",
) {}
export class ProjectNotFoundError extends define("PROJECT_NOT_FOUND", "project not found") {}
export class DeployNotFoundError extends define("DEPLOY_NOT_FOUND", "deploy not found") {}
export class RevisionNotFoundError extends define("REVISION_NOT_FOUND", "revision not found") {}
/** A TXT record that would prove control of a hostname (the one a DOMAIN_TAKEN refusal names). */
export interface TxtRecord {
  type: "TXT";
  name: string;
  value: string;
}

/** The hostname is held or withheld; `txtRecord`, when set, is the proof that would take it over. */
export class DomainTakenError extends DeployError {
  constructor(
    message = "hostname is held by another project",
    readonly details: { txtRecord?: TxtRecord } = {},
  ) {
    super("DOMAIN_TAKEN", message);
  }
}
/** The project has no custom hostname to check. */
export class DomainNotAssignedError extends define(
  "DOMAIN_NOT_ASSIGNED",
  "this project has no custom domain",
) {}
export class DeployAlreadyCompletedError extends define(
  "DEPLOY_ALREADY_COMPLETED",
  "deploy was already completed with another completion token",
) {}
/** A prepare by manifest digest alone, when production was not deployed from that manifest. */
export class ManifestChangedError extends define(
  "MANIFEST_CHANGED",
  "production does not serve the manifest with this digest; send the manifest",
) {}
export class ProjectExpiredError extends define("PROJECT_EXPIRED", "project expired") {}
export class DeployExpiredError extends define("DEPLOY_EXPIRED", "deploy preparation expired") {}
export class InvalidCompletionError extends define("INVALID_COMPLETION", "invalid completion token") {}
/** A request body arrived slower than the minimum pace (BODY_MIN_BYTES_PER_SECOND) and was cut off. */
export class RequestTimeoutError extends define("REQUEST_TIMEOUT", "request body arrived too slowly") {}
export class PayloadTooLargeError extends define("PAYLOAD_TOO_LARGE", "request body too large") {}
export class RateLimitedError extends DeployError {
  constructor(readonly retryAfterSeconds: number) {
    super("RATE_LIMITED", "too many requests, retry later");
  }
}
/** The API holds as many request bodies in flight as it may; the client should retry later. */
export class ServerBusyError extends DeployError {
  constructor(readonly retryAfterSeconds: number) {
    super("SERVER_BUSY", "the server is reading too many request bodies, retry later");
  }
}
/** The process is starting: the listener is open, what answers on it is not ready yet. */
export class ServerStartingError extends DeployError {
  readonly retryAfterSeconds = 1;
  constructor() {
    super("SERVER_STARTING", "the server is starting, retry in a moment");
  }
}
/**
 * The database cannot answer now (unreachable, restarting, overloaded, a statement past its
 * timeout, or a DATABASE_URL it refuses); nothing was changed and the request can be repeated.
 */
export class DatabaseUnavailableError extends DeployError {
  readonly retryAfterSeconds = 5;
  constructor(options?: { cause?: unknown }) {
    super("DATABASE_UNAVAILABLE", "the database is unavailable, retry later", options);
  }
}
/**
 * Which storage quota a request would exceed: PROJECT_QUOTA_BYTES, PENDING_QUOTA_BYTES, or
 * CLIENT_QUOTA_BYTES (over the projects one client address created).
 */
export type Quota = "project" | "pending" | "client";

/** A deploy would store more than a quota allows; says which quota, its limit and what is left. */
export class QuotaExceededError extends DeployError {
  constructor(
    readonly quota: Quota,
    readonly limitBytes: number,
    readonly remainingBytes: number,
    message: string,
  ) {
    super("QUOTA_EXCEEDED", message);
  }
}
/** The server is short of disk space (under MIN_FREE_BYTES free): uploads wait until it is freed. */
export class InsufficientStorageError extends define(
  "INSUFFICIENT_STORAGE",
  "the server is short of storage; uploads are refused until space is freed",
) {}
/** A deploy would give its project one preview alias more than it may have (MAX_ALIASES). */
export class AliasLimitError extends define("ALIAS_LIMIT", "the project has as many aliases as it may") {}
/** A site's `_redirects` or `_headers` does not parse: names the file and the line. */
export class InvalidSiteConfigError extends DeployError {
  /** Every line that is wrong, in order; the first is `line` and `reason`. */
  readonly problems: readonly SiteConfigProblem[];

  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
    problems?: readonly SiteConfigProblem[],
  ) {
    const all = problems ?? [{ line, reason }];
    // The first problem as it always was (`file:line: reason`), the others after it, bounded.
    const shown = all.slice(0, MAX_SITE_CONFIG_PROBLEMS).map((p) => siteConfigLine(file, p));
    const more =
      all.length > MAX_SITE_CONFIG_PROBLEMS ? [`and ${all.length - MAX_SITE_CONFIG_PROBLEMS} more`] : [];
    super("INVALID_SITE_CONFIG", [...shown, ...more].join("; "));
    this.problems = all;
  }
}

/** One wrong line of a rules file; line 0 for the file as a whole. */
export interface SiteConfigProblem {
  line: number;
  reason: string;
}

/** Most problems an INVALID_SITE_CONFIG message names (a file of garbage would name thousands). */
const MAX_SITE_CONFIG_PROBLEMS = 50;

function siteConfigLine(file: string, problem: SiteConfigProblem): string {
  return problem.line > 0 ? `${file}:${problem.line}: ${problem.reason}` : `${file}: ${problem.reason}`;
}
/**
 * The object store holding the content (OBJECT_STORE_URL) failed or did not answer in time;
 * nothing was changed and the request can be repeated.
 */
export class ObjectStoreUnavailableError extends DeployError {
  readonly retryAfterSeconds = 5;
  constructor(message = "the content store is unavailable, retry later", options?: { cause?: unknown }) {
    super("OBJECT_STORE_UNAVAILABLE", message, options);
  }
}
export class UploadPlatformError extends define("UPLOAD_PLATFORM_ERROR", "the upload platform failed") {}
export class InternalError extends define("INTERNAL", "internal error") {}
