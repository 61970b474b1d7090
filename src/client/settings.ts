import { availableParallelism } from "node:os";
import { UsageError } from "./errors.js";
import { THREAD_MIN_FILES } from "./scan/hash.js";

/** Default API base URL when neither --api-url nor DEPLOY_API_URL is given. */
export const DEFAULT_API_URL = "http://127.0.0.1:8787";
const MIB = 1024 * 1024;

/**
 * The defaults of the settings below, in one place: the help text is written from them, so help
 * and behaviour cannot disagree on a number.
 */
export const DEFAULTS = {
  maxFiles: 100_000,
  maxFileBytes: 25 * MIB,
  uploadConcurrency: 3,
  /** One hashing thread per core, at most this many. */
  maxHashThreads: 8,
  hashThreadMinFiles: THREAD_MIN_FILES,
  retryBaseMs: 500,
  maxAttempts: 6,
  /** Attempts when the connection is refused: nothing listens, more likely a wrong URL than a blip. */
  maxRefusedAttempts: 3,
  /** How long a run waits for another run on the same folder to finish. */
  lockWaitSeconds: 120,
} as const;

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
  lockWaitSeconds: number;
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
    maxFiles: integer(env, "DEPLOY_MAX_FILES", DEFAULTS.maxFiles, 1),
    maxFileBytes: integer(env, "DEPLOY_MAX_FILE_BYTES", DEFAULTS.maxFileBytes, 0),
    uploadConcurrency: integer(env, "DEPLOY_UPLOAD_CONCURRENCY", DEFAULTS.uploadConcurrency, 1),
    hashThreads: integer(
      env,
      "DEPLOY_HASH_THREADS",
      Math.min(availableParallelism(), DEFAULTS.maxHashThreads),
      0,
    ),
    hashThreadMinFiles: integer(env, "DEPLOY_HASH_THREAD_MIN_FILES", DEFAULTS.hashThreadMinFiles, 0),
    retryBaseMs: integer(env, "DEPLOY_RETRY_BASE_MS", DEFAULTS.retryBaseMs, 0),
    maxAttempts: integer(env, "DEPLOY_MAX_ATTEMPTS", DEFAULTS.maxAttempts, 1),
    lockWaitSeconds: integer(env, "DEPLOY_LOCK_WAIT_SECONDS", DEFAULTS.lockWaitSeconds, 0),
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
