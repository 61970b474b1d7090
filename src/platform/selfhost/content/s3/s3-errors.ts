import { S3ServiceException } from "@aws-sdk/client-s3";
import { ObjectStoreUnavailableError } from "../../../../core/errors.js";
import { PackDamagedError, PackMissingError } from "../pack-storage.js";

/**
 * What a failed request to the object store means for a pack: the object is missing
 * (PackMissingError), shorter than the range asked for (PackDamagedError), or the store failed or
 * did not answer in time (ObjectStoreUnavailableError, 503). `what` says which request, for the log.
 */
export function storeError(what: string, error: unknown): Error {
  if (error instanceof PackDamagedError) return error;
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode;
    if (error.name === "NoSuchKey" || (status === 404 && error.name !== "NoSuchBucket"))
      return new PackMissingError(`${what}: no such object`);
    if (error.name === "InvalidRange" || status === 416)
      return new PackDamagedError(`${what}: the object is shorter than its row says`);
  }
  // What failed goes to the log (the cause), never into a response.
  return new ObjectStoreUnavailableError(undefined, {
    cause: new Error(`${what}: ${describe(error)}`, { cause: error }),
  });
}

function describe(error: unknown): string {
  if (error instanceof S3ServiceException)
    return `${error.name} (${error.$metadata.httpStatusCode ?? "no status"})`;
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.name;
  return String(error);
}
