import { ASSET_HASH } from "../core/formats.js";
import type { PartHeaders } from "./multipart.js";
import { UploadError, UploadErrorCode, badRequest } from "./upload-errors.js";

// The checks of a bucket's part (bucket-receiver.ts): its headers when it opens, its content at its end.

// A media type as sent in a part header: `type/subtype` and optional parameters, printable ASCII.
const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;[\x20-\x7e]*)?$/i;

/** The asset hash a part is named by, or a refusal when its name is not one. */
export function partHashOf(part: PartHeaders): string {
  const hash = part.name ?? part.filename ?? "";
  if (!ASSET_HASH.test(hash)) {
    throw badRequest(`part name ${JSON.stringify(hash.slice(0, 80))} is not an asset hash`);
  }
  return hash;
}

/** The media type part `hash` declares (none: undefined), or a refusal when it is not one. */
export function declaredMediaType(part: PartHeaders, hash: string): string | undefined {
  const declared = part.headers["content-type"];
  if (declared !== undefined && !MEDIA_TYPE.test(declared)) {
    throw badRequest(`part ${hash} has an invalid Content-Type`);
  }
  return declared;
}

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
