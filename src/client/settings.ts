import { availableParallelism } from "node:os";
import { UsageError } from "./errors.js";
import { THREAD_MIN_FILES } from "./scan/hash.js";

/** Default API base URL when neither --api-url nor DEPLOY_API_URL is given. */
const DEFAULT_API_URL = "http://127.0.0.1:8787";
const MIB = 1024 * 1024;

/** Tunables of the client, from the environment (tests shorten them). */
export interface Settings {
  maxFiles: number;
  maxFileBytes: number;
  uploadConcurrency: number;
  hashThreads: number;
  /** Fewest files to hash that start hashing threads. */
  hashThreadMinFiles: number;
  retryBaseMs: number;
  maxAttempts: number;
}

/** The API base URL: the flag, else DEPLOY_API_URL, else the default. */
export function resolveApiUrl(flag: string | undefined, env: Readonly<Record<string, string | undefined>>) {
  if (flag !== undefined) return flag;
  const fromEnv = env.DEPLOY_API_URL;
  if (fromEnv !== undefined && fromEnv !== "") return checkApiUrl(fromEnv, "DEPLOY_API_URL");
  return DEFAULT_API_URL;
}

/** Checks an API base URL (from `--api-url` or DEPLOY_API_URL) and drops a trailing slash. */
export function checkApiUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${source} "${value}" is not a URL`, "Example: --api-url http://127.0.0.1:8787");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${source} "${value}" must start with http:// or https://`);
  }
  return value.replace(/\/+$/, "");
}

/** Reads the settings from the environment; a malformed number is a usage error naming it. */
export function readSettings(env: Readonly<Record<string, string | undefined>>): Settings {
  return {
    maxFiles: integer(env, "DEPLOY_MAX_FILES", 100_000, 1),
    maxFileBytes: integer(env, "DEPLOY_MAX_FILE_BYTES", 25 * MIB, 0),
    uploadConcurrency: integer(env, "DEPLOY_UPLOAD_CONCURRENCY", 3, 1),
    hashThreads: integer(env, "DEPLOY_HASH_THREADS", Math.min(availableParallelism(), 8), 0),
    hashThreadMinFiles: integer(env, "DEPLOY_HASH_THREAD_MIN_FILES", THREAD_MIN_FILES, 0),
    retryBaseMs: integer(env, "DEPLOY_RETRY_BASE_MS", 500, 0),
    maxAttempts: integer(env, "DEPLOY_MAX_ATTEMPTS", 6, 1),
  };
}

function integer(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
  min: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${name}="${raw}" must be an integer of at least ${min}`);
  }
  return value;
}
