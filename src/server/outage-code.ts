import { DatabaseUnavailableError, ObjectStoreUnavailableError } from "../core/errors.js";
import { isDatabaseUnavailable } from "../shared/database/postgres-errors.js";

/** The code of the outage a failure comes from (the object store or the database down), or undefined. */
export function outageCode(error: unknown): string | undefined {
  if (error instanceof ObjectStoreUnavailableError || error instanceof DatabaseUnavailableError)
    return error.code;
  return isDatabaseUnavailable(error) ? "DATABASE_UNAVAILABLE" : undefined;
}
