import { UploadError, UploadErrorCode } from "./upload-errors.js";

/**
 * Refuses a part that ended with content hashing to `received` rather than its name `hash`, or
 * holding `size` bytes where its manifest entry declared fewer (`declaredSize`).
 */
export function checkReceivedPart(hash: string, received: string, size: number, declaredSize: number): void {
  if (received !== hash) {
    throw new UploadError(
      400,
      UploadErrorCode.hashMismatch,
      `content of part ${hash} does not match its hash`,
    );
  }
  // The quotas counted the size the manifest declared: a part may not bring more.
  if (size > declaredSize) {
    throw new UploadError(
      413,
      UploadErrorCode.quotaExceeded,
      `part ${hash} holds ${size} bytes, more than the ${declaredSize} its manifest entry ` +
        "declared, which is what the storage quotas (PROJECT_QUOTA_BYTES, PENDING_QUOTA_BYTES) counted",
    );
  }
}
