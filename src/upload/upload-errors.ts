/**
 * An upload-service error, answered in Cloudflare's envelope
 * `{ success: false, errors: [{ code, message }] }` with a numeric code as Cloudflare uses.
 */
export class UploadError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 408 | 413 | 415 | 500 | 503 | 507,
    readonly code: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Stable numeric codes of the built-in upload service, documented in the README. */
export const UploadErrorCode = {
  unauthorized: 10001,
  accountNotFound: 10002,
  badRequest: 10003,
  hashMismatch: 10004,
  hashNotInSession: 10005,
  tooLarge: 10006,
  notFound: 10007,
  quotaExceeded: 10008,
  insufficientStorage: 10009,
  objectStoreUnavailable: 10010,
  databaseUnavailable: 10011,
  duplicatePart: 10012,
  tooManyParts: 10013,
  requestTimeout: 10014,
  internal: 10000,
} as const;

/** The token is missing, forged, expired, or of another session or purpose. */
export const unauthorized = (message = "upload token is missing, invalid or expired") =>
  new UploadError(401, UploadErrorCode.unauthorized, message);

/** The request or one of its parts is malformed. */
export const badRequest = (message: string) => new UploadError(400, UploadErrorCode.badRequest, message);

/** The bucket's body arrived slower than the minimum pace (BODY_MIN_BYTES_PER_SECOND) and was cut off. */
export const requestTimeout = (pace: { minBytesPerSecond: number }) =>
  new UploadError(
    408,
    UploadErrorCode.requestTimeout,
    `request body arrived slower than ${pace.minBytesPerSecond} bytes a second`,
  );

/** The server is short of storage (MIN_FREE_BYTES): a client should report it, not retry. */
export const insufficientStorage = () =>
  new UploadError(
    507,
    UploadErrorCode.insufficientStorage,
    "the server is short of storage; uploads are refused until space is freed",
  );

/** The content store (OBJECT_STORE_URL) failed: nothing of the bucket was recorded; send it again. */
export const objectStoreUnavailable = (cause: unknown) =>
  new UploadError(
    503,
    UploadErrorCode.objectStoreUnavailable,
    "the content store is unavailable; nothing of this bucket was stored, send it again",
    { cause },
  );

/** The database behind the service does not answer (down, restarting): nothing was recorded; retry. */
export const databaseUnavailable = () =>
  new UploadError(
    503,
    UploadErrorCode.databaseUnavailable,
    "the service's database is unavailable; retry shortly",
  );
