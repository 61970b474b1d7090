import type { Context } from "hono";
import type { Logger } from "pino";
import type { OutageLog } from "../shared/observability/outage-log.js";
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
import { STATUS_BY_CODE } from "./status-by-code.js";

/**
 * The one place that turns errors into responses: a domain error becomes its status with
 * `{ error: { code, message } }`; a client that went away is logged at info (499); anything else is
 * logged as an error and answered 500 INTERNAL. A server-side
 * failure's cause goes to the log only, never into the body, and no body carries a stack trace.
 */
export function errorResponse(error: unknown, c: Context, logger: Logger, outages?: OutageLog): Response {
  if (error instanceof DeployError) {
    const status = STATUS_BY_CODE[error.code];
    const where = requestOrigin(c);
    // A full body budget is a refusal by design, worth a warning; any other 5xx is a failure.
    if (error instanceof ServerBusyError) logger.warn(where, error.code);
    // An outage fails every request alike: counted into one line per interval, not one each.
    else if (
      outages &&
      (error instanceof DatabaseUnavailableError || error instanceof ObjectStoreUnavailableError)
    )
      outages.record(error.code, error);
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
