import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import {
  DatabaseUnavailableError,
  DeployError,
  DomainTakenError,
  type ErrorCode,
  ObjectStoreUnavailableError,
  QuotaExceededError,
  RateLimitedError,
  ServerBusyError,
  ServerStartingError,
} from "../core/errors.js";
import { isClientAbort } from "../shared/client-abort.js";
import { requestOrigin } from "../shared/observability/request-logger.js";

/** The HTTP status of each domain error code (contract §5); a code without one does not compile. */
const STATUS_BY_CODE: Record<ErrorCode, ContentfulStatusCode> = {
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

/**
 * The one place that turns errors into responses: a domain error becomes its status with
 * `{ error: { code, message } }`; a client that went away is logged at info (499); anything else is
 * logged as an error and answered 500 INTERNAL. A server-side
 * failure's cause goes to the log only, never into the body, and no body carries a stack trace.
 */
export function errorResponse(error: unknown, c: Context, logger: Logger): Response {
  if (error instanceof DeployError) {
    const status = STATUS_BY_CODE[error.code];
    const where = requestOrigin(c);
    // A full body budget is a refusal by design, worth a warning; any other 5xx is a failure.
    if (error instanceof ServerBusyError) logger.warn(where, error.code);
    else if (status >= 500) logger.error({ err: error, ...where }, error.code);
    if (
      error instanceof RateLimitedError ||
      error instanceof ServerBusyError ||
      error instanceof ServerStartingError ||
      error instanceof DatabaseUnavailableError ||
      error instanceof ObjectStoreUnavailableError
    ) {
      c.header("Retry-After", String(error.retryAfterSeconds));
    }
    if (error instanceof QuotaExceededError) {
      // Which quota, and what is left of it, in fields a client can read as well as in the message.
      const { quota, limitBytes, remainingBytes } = error;
      return c.json(
        { error: { code: error.code, message: error.message, quota, limitBytes, remainingBytes } },
        status,
      );
    }
    if (error instanceof DomainTakenError && error.details.txtRecord) {
      // The record that would prove control, for a client to print as it is.
      const { txtRecord } = error.details;
      return c.json({ error: { code: error.code, message: error.message, txtRecord } }, status);
    }
    return c.json({ error: { code: error.code, message: error.message } }, status);
  }
  if (isClientAbort(error)) {
    // Nobody is left to answer; nginx's 499 says so in the request log.
    logger.info(requestOrigin(c), "client aborted the request");
    return new Response(null, { status: 499 });
  }
  logger.error({ err: error, ...requestOrigin(c) }, "unexpected error");
  const code: ErrorCode = "INTERNAL";
  return c.json({ error: { code, message: "internal error" } }, 500);
}
