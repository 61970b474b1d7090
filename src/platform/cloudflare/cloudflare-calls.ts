import Cloudflare from "cloudflare";
import { UploadPlatformError } from "../../core/errors.js";

/** How long one call may spend waiting between Cloudflare's retries, and how to wait. */
export interface RetryBudget {
  budgetMs: number;
  /** Milliseconds since the epoch (a Retry-After date is measured against it). */
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Tries of one call at most, whatever the budget (Retry-After: 0 would otherwise loop). */
const MAX_TRIES = 5;

/** The first wait when Cloudflare gave no Retry-After; doubled each try. */
const FIRST_BACKOFF_MS = 250;

/** Cloudflare refused a call (a 4xx other than 401, 403 and 429): the caller decides what it means. */
export class CloudflareRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** `HTTP 500, code 10013: message` — Cloudflare's status and first error, for messages. */
function describe(error: InstanceType<typeof Cloudflare.APIError>): { code?: number; text: string } {
  const first = (error.errors as { code?: number; message?: string }[] | undefined)?.[0];
  const code = typeof first?.code === "number" ? first.code : undefined;
  const detail = first?.message === undefined ? "" : `: ${first.message}`;
  return {
    code,
    text: `HTTP ${error.status ?? "error"}${code === undefined ? "" : `, code ${code}`}${detail}`,
  };
}

const isRetryable = (status: number | undefined) => status === undefined || status === 429 || status >= 500;

/** The wait Cloudflare asked for (Retry-After, seconds or a date), else the backoff of try `attempt`. */
function delayOf(error: unknown, attempt: number, now: number): number {
  const headers = (error as { headers?: Record<string, string> }).headers;
  const retryAfter = headers?.["retry-after"];
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return FIRST_BACKOFF_MS * 2 ** attempt;
}

/**
 * Runs one call to Cloudflare through the SDK: 429, 5xx and network failures are retried with
 * backoff (Retry-After when Cloudflare sends one) while the budget allows, then answered as
 * UPLOAD_PLATFORM_ERROR with Cloudflare's code; 401 and 403 become a message an operator can act
 * on; other refusals are thrown as CloudflareRefusal. `step` names the call, never a secret.
 */
export async function cloudflareCall<T>(
  step: string,
  budget: RetryBudget,
  work: () => Promise<T>,
): Promise<T> {
  let waited = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof Cloudflare.APIError)) throw error;
      const { code, text } = describe(error);
      if (error.status === 401 || error.status === 403) {
        throw new UploadPlatformError(
          `Cloudflare refused the API token on ${step} (${text}); check CLOUDFLARE_API_TOKEN and its permissions (docs/cloudflare.md)`,
          { cause: error },
        );
      }
      if (!isRetryable(error.status)) throw new CloudflareRefusal(error.status ?? 0, code, text);
      const delay = delayOf(error, attempt, budget.now());
      if (attempt + 1 >= MAX_TRIES || waited + delay > budget.budgetMs) {
        throw new UploadPlatformError(`Cloudflare failed on ${step} (${text}); try again later`, {
          cause: error,
        });
      }
      waited += delay;
      await budget.sleep(delay);
    }
  }
}
