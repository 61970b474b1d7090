/**
 * Domain errors. Each condition of the contract (§5) is one subclass carrying its HTTP status and
 * a stable code; only the HTTP layers turn them into responses.
 */
export class DeployError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

const define = (status: number, code: string, fallback: string) =>
  class extends DeployError {
    constructor(message: string = fallback) {
      super(status, code, message);
    }
  };

export class InvalidJsonError extends define(400, "INVALID_JSON", "request body must be a JSON object") {}
export class UnsupportedMediaTypeError extends define(
  415,
  "UNSUPPORTED_MEDIA_TYPE",
  "Content-Type must be application/json",
) {}
export class InvalidRequestError extends define(400, "INVALID_REQUEST", "invalid request") {}
export class InvalidProjectHashError extends define(
  400,
  "INVALID_PROJECT_HASH",
  "projectHash must be 64 hexadecimal characters",
) {}
export class InvalidFingerprintError extends define(
  400,
  "INVALID_FINGERPRINT",
  "anonFingerprint must be 64 hexadecimal characters",
) {}
export class InvalidManifestError extends define(400, "INVALID_MANIFEST", "invalid manifest") {}
export class InvalidDomainError extends define(400, "INVALID_DOMAIN", "invalid hostname") {}
export class UnauthorizedError extends define(401, "UNAUTHORIZED", "missing or unknown bearer token") {}
export class OwnershipMismatchError extends define(
  403,
  "OWNERSHIP_MISMATCH",
  "credentials do not belong to this project",
) {}
export class ProjectNotFoundError extends define(404, "PROJECT_NOT_FOUND", "project not found") {}
export class DeployNotFoundError extends define(404, "DEPLOY_NOT_FOUND", "deploy not found") {}
export class DomainTakenError extends define(409, "DOMAIN_TAKEN", "hostname is held by another project") {}
export class DeployAlreadyCompletedError extends define(
  409,
  "DEPLOY_ALREADY_COMPLETED",
  "deploy was already completed with another completion token",
) {}
export class ProjectExpiredError extends define(410, "PROJECT_EXPIRED", "project expired") {}
export class DeployExpiredError extends define(410, "DEPLOY_EXPIRED", "deploy preparation expired") {}
export class InvalidCompletionError extends define(422, "INVALID_COMPLETION", "invalid completion token") {}
export class PayloadTooLargeError extends define(413, "PAYLOAD_TOO_LARGE", "request body too large") {}
export class RateLimitedError extends DeployError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, "RATE_LIMITED", "too many requests, retry later");
  }
}
export class UploadPlatformError extends define(502, "UPLOAD_PLATFORM_ERROR", "the upload platform failed") {}
export class InternalError extends define(500, "INTERNAL", "internal error") {}
