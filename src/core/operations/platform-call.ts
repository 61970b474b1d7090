import { DeployError, UploadPlatformError } from "../errors.js";

/**
 * Runs a platform call; a failure that is not a domain error becomes UPLOAD_PLATFORM_ERROR with a
 * fixed message, the cause kept for the server's log and never shown to the client.
 */
export async function callPlatform<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DeployError) throw error;
    throw new UploadPlatformError("the upload platform failed; try again later", { cause: error });
  }
}
