import { DatabaseUnavailableError, DeployError, UploadPlatformError } from "../errors.js";
import { isDatabaseUnavailable } from "../../shared/database/postgres-errors.js";

/**
 * Runs a platform call; a failure that is not a domain error becomes UPLOAD_PLATFORM_ERROR with a
 * fixed message, the cause kept for the server's log and never shown to the client. The built-in
 * platform's own database going away (PostgreSQL restarting) is DATABASE_UNAVAILABLE instead: an
 * outage to retry, answered as the store's is.
 */
export async function callPlatform<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DeployError) throw error;
    if (isDatabaseUnavailable(error)) throw new DatabaseUnavailableError({ cause: error });
    throw new UploadPlatformError("the upload platform failed; try again later", { cause: error });
  }
}
