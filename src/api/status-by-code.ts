import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorCode } from "../core/errors.js";

/**
 * The HTTP status of each domain error code (contract §5); a code without one does not compile.
 * The error responses and the OpenAPI document's error descriptions are both read from here.
 */
export const STATUS_BY_CODE: Record<ErrorCode, ContentfulStatusCode> = {
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  INVALID_PROJECT_HASH: 400,
  INVALID_FINGERPRINT: 400,
  INVALID_MANIFEST: 400,
  INVALID_DOMAIN: 400,
  UNAUTHORIZED: 401,
  OWNERSHIP_MISMATCH: 403,
  PROJECT_NOT_FOUND: 404,
  DEPLOY_NOT_FOUND: 404,
  REVISION_NOT_FOUND: 404,
  DOMAIN_NOT_ASSIGNED: 404,
  DOMAIN_TAKEN: 409,
  DEPLOY_ALREADY_COMPLETED: 409,
  MANIFEST_CHANGED: 409,
  PROJECT_EXPIRED: 410,
  DEPLOY_EXPIRED: 410,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  QUOTA_EXCEEDED: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_COMPLETION: 422,
  INVALID_SITE_CONFIG: 422,
  ALIAS_LIMIT: 409,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UPLOAD_PLATFORM_ERROR: 502,
  SERVER_BUSY: 503,
  SERVER_STARTING: 503,
  DATABASE_UNAVAILABLE: 503,
  OBJECT_STORE_UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
};

/** What a client reads beside some codes' message, for the OpenAPI descriptions. */
export const CODE_NOTES: Partial<Record<ErrorCode, string>> = {
  QUOTA_EXCEEDED: "on prepare and deploy, with quota, limitBytes, remainingBytes",
  INVALID_SITE_CONFIG: "a `_redirects` or `_headers` line that does not parse",
  RATE_LIMITED: "with Retry-After",
  SERVER_BUSY: "with Retry-After",
  SERVER_STARTING: "while the process starts, with Retry-After",
  DATABASE_UNAVAILABLE: "with Retry-After",
  OBJECT_STORE_UNAVAILABLE: "with Retry-After",
  DOMAIN_TAKEN: "with txtRecord when a DNS record would prove control",
  INSUFFICIENT_STORAGE: "the server is short of storage; do not retry at once",
};

/** The codes answered with `status`, with their notes, as the OpenAPI document describes them. */
export function codesOfStatus(status: number): string {
  return (Object.keys(STATUS_BY_CODE) as ErrorCode[])
    .filter((code) => STATUS_BY_CODE[code] === status)
    .map((code) => (CODE_NOTES[code] === undefined ? code : `${code} (${CODE_NOTES[code]})`))
    .join(", ");
}
