/** Where packs go in an object store: a bucket and a key prefix (empty, or ending in `/`). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

/** The object store's settings (OBJECT_STORE_URL and the AWS_ and S3_ variables). */
export interface S3Settings {
  location: S3Location;
  region: string;
  /** For R2, MinIO and the like; AWS's own endpoint when absent. */
  endpoint?: string;
  forcePathStyle: boolean;
  /** The SDK's own chain (environment, profile, instance role) when absent. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Longest one request to the store may take, in milliseconds. */
  timeoutMs: number;
  /** Bytes of pack ranges the edge keeps on the local disk. */
  diskCacheBytes: number;
}

// A bucket name as S3 allows it (3 to 63 of lowercase letters, digits, dots and hyphens), then
// an optional key prefix.
const OBJECT_STORE_URL = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/;

/** Parses `s3://bucket/prefix`; undefined when it is not one. */
export function parseObjectStoreUrl(url: string): S3Location | undefined {
  const match = OBJECT_STORE_URL.exec(url);
  if (!match) return undefined;
  const path = (match[2] ?? "").replace(/^\/+|\/+$/g, "");
  return { bucket: match[1]!, prefix: path === "" ? "" : `${path}/` };
}
