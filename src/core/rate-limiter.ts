import { type Clock, systemClock } from "./clock.js";
import { RateLimitedError } from "./errors.js";

/** At most `limit` hits per key in each window of `windowSeconds`. */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

/** Counts hits per key; throws RATE_LIMITED past its limit (a limiter shared by processes answers later). */
export interface Limiter {
  hit(key: string): void | Promise<void>;
}

/** RATE_LIMITED for a fixed window that began at `start` (ms) and lasts `windowMs`, seen at `now`. */
export function windowFull(start: number, windowMs: number, now: number): RateLimitedError {
  return new RateLimitedError(Math.max(1, Math.ceil((start + windowMs - now) / 1000)));
}

/**
 * A fixed-window counter per key, in memory. Enough for one instance; several instances behind a
 * balancer each count their own share.
 */
export class RateLimiter implements Limiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly rule: RateLimit,
    private readonly clock: Clock = systemClock,
  ) {}

  /** How many keys have a window in memory (bounded: ended windows are pruned past 100,000). */
  get trackedKeys(): number {
    return this.windows.size;
  }

  /** Counts a hit for `key`; throws RATE_LIMITED with the seconds until the window resets. */
  hit(key: string): void {
    if (this.rule.limit <= 0) return;
    const now = this.clock.now();
    const windowMs = this.rule.windowSeconds * 1000;
    let window = this.windows.get(key);
    if (!window || now - window.start >= windowMs) {
      if (this.windows.size > 100_000) this.prune(now);
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= this.rule.limit) {
      throw windowFull(window.start, windowMs, now);
    }
    window.count++;
  }

  // Bounds memory under a flood of distinct keys: windows that ended carry no information.
  private prune(now: number): void {
    const windowMs = this.rule.windowSeconds * 1000;
    for (const [key, window] of this.windows) if (now - window.start >= windowMs) this.windows.delete(key);
  }
}
