import { parseObjectStoreUrl, type S3Settings } from "../platform/selfhost/index.js";

/** The environment's object-store variables, as the configuration schema read them. */
export interface ObjectStoreEnv {
  OBJECT_STORE_URL?: string;
  AWS_ACCESS_KEY_ID?: string;
  AWS_SECRET_ACCESS_KEY?: string;
  AWS_REGION: string;
  S3_ENDPOINT?: string;
  S3_FORCE_PATH_STYLE: boolean;
  OBJECT_STORE_TIMEOUT_SECONDS: number;
  EDGE_DISK_CACHE_BYTES: number;
}

/**
 * The object store's settings, undefined without OBJECT_STORE_URL (packs stay in DATA_DIR), or
 * what is wrong as one line starting with the variable's name.
 */
export function objectStoreSettings(env: ObjectStoreEnv): S3Settings | undefined | string {
  if (env.OBJECT_STORE_URL === undefined) return undefined;
  const location = parseObjectStoreUrl(env.OBJECT_STORE_URL);
  if (!location) return "OBJECT_STORE_URL: must be s3://bucket or s3://bucket/prefix (a valid bucket name)";
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    return accessKeyId === undefined
      ? "AWS_ACCESS_KEY_ID: required with AWS_SECRET_ACCESS_KEY"
      : "AWS_SECRET_ACCESS_KEY: required with AWS_ACCESS_KEY_ID";
  }
  return {
    location,
    region: env.AWS_REGION,
    endpoint: env.S3_ENDPOINT,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
    // Without keys, the SDK's own chain (its profile files, an instance or task role).
    credentials:
      accessKeyId !== undefined && secretAccessKey !== undefined
        ? { accessKeyId, secretAccessKey }
        : undefined,
    timeoutMs: env.OBJECT_STORE_TIMEOUT_SECONDS * 1000,
    diskCacheBytes: env.EDGE_DISK_CACHE_BYTES,
  };
}
