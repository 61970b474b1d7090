import { setTimeout as delay } from "node:timers/promises";
import { ApiError, NetworkError } from "../errors.js";
import { DEFAULTS } from "../settings.js";

/** How often and how long to retry a request that failed for a passing reason. */
export interface RetryPolicy {
  maxAttempts: number;
  /** Attempts when the connection is refused (nothing listens: more likely a wrong URL than a blip). */
  maxRefusedAttempts: number;
  baseMs: number;
  maxMs: number;
  /** Longest Retry-After honoured. */
  maxRetryAfterMs: number;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** What a retry hook is told before the client waits and tries again. */
export interface RetryNotice {
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  error: Error;
}

/** The default policy: 6 attempts (3 on a refused connection), 500 ms doubling to 30 s, with jitter. */
export function defaultRetryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return {
    maxAttempts: DEFAULTS.maxAttempts,
    maxRefusedAttempts: DEFAULTS.maxRefusedAttempts,
    baseMs: DEFAULTS.retryBaseMs,
    maxMs: 30_000,
    maxRetryAfterMs: 120_000,
    random: Math.random,
    sleep: (ms) => delay(ms),
    ...overrides,
  };
}

/**
 * True for failures worth another try: no answer, a 5xx, 429, or 408 (the body arrived too slowly
 * and was cut off: a slow link's moment); never another 4xx, and never 507 (the server is short of
 * storage: trying again soon only sends the same bytes for nothing).
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  if (error instanceof ApiError) {
    return (error.status >= 500 && error.status !== 507) || error.status === 429 || error.status === 408;
  }
  return false;
}

/**
 * True for failures after which the server surely did nothing: the connection was refused (no
 * byte was sent), a 429 (a rate-limited request changes nothing, contract §5) or a 408 (the body
 * never arrived whole, so nothing read it). The only safe retries of a request that is not
 * idempotent, such as creating a project.
 */
export function isRetryableUnsent(error: unknown): boolean {
  if (error instanceof NetworkError) return error.causeCode === "ECONNREFUSED";
  return error instanceof ApiError && (error.status === 429 || error.status === 408);
}

/** The wait before retry number `attempt` (1 = first retry): Retry-After when given, else backoff with jitter. */
export function retryDelayMs(attempt: number, policy: RetryPolicy, error: unknown): number {
  if (error instanceof ApiError && error.retryAfterMs !== undefined) {
    return Math.min(error.retryAfterMs, policy.maxRetryAfterMs);
  }
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (policy.random() * ceiling) / 2);
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Runs `operation`, retrying the failures `retryable` accepts under `policy`; the last failure is thrown. */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  onRetry?: (notice: RetryNotice) => void,
  retryable: (error: unknown) => boolean = isRetryable,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      const maxAttempts = attemptsFor(error, policy);
      if (attempt >= maxAttempts || !retryable(error)) throw error;
      const delayMs = retryDelayMs(attempt, policy, error);
      onRetry?.({ attempt, maxAttempts, delayMs, error: error as Error });
      await policy.sleep(delayMs);
    }
  }
}

function attemptsFor(error: unknown, policy: RetryPolicy): number {
  const refused = error instanceof NetworkError && error.causeCode === "ECONNREFUSED";
  return refused ? Math.min(policy.maxAttempts, policy.maxRefusedAttempts) : policy.maxAttempts;
}
