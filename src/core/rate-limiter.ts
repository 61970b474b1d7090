import { FifoQueue } from "../shared/fifo-queue.js";
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

/** Keys a limiter keeps a window of by default (RATE_LIMIT_KEYS): the bound on its memory. */
export const DEFAULT_MAX_KEYS = 100_000;

/** Ended windows a hit drops at most: more than the one it may add, so the ended ones drain. */
export const DROPS_PER_HIT = 2;

interface Window {
  key: string;
  start: number;
  count: number;
}

/**
 * A fixed-window counter per key, in memory. Enough for one instance; several instances behind a
 * balancer each count their own share. Every window lasts as long, so windows end in the order
 * they started: a queue of them in that order lets each hit drop the few at its head that ended
 * (at most DROPS_PER_HIT), never a scan of every key, so a hit costs the same at 100 keys or a
 * million. At most `maxKeys` keys have a window of their own; past that, new keys share one
 * overflow window (together `limit` hits a window) until windows end. A live window is never
 * dropped to make room: that would let a client reset its own limit by flooding new keys.
 */
export class RateLimiter implements Limiter {
  private readonly windows = new Map<string, Window>();
  /** Each window as it started, oldest first; a key's entry is stale once it started anew. */
  private readonly started = new FifoQueue<Window>();
  private overflow: Window | undefined;

  constructor(
    private readonly rule: RateLimit,
    private readonly clock: Clock = systemClock,
    private readonly maxKeys = DEFAULT_MAX_KEYS,
  ) {}

  /** How many keys have a window in memory (at most `maxKeys`). */
  get trackedKeys(): number {
    return this.windows.size;
  }

  /** Counts a hit for `key`; throws RATE_LIMITED with the seconds until the window resets. */
  hit(key: string): void {
    if (this.rule.limit <= 0) return;
    const now = this.clock.now();
    const windowMs = this.rule.windowSeconds * 1000;
    this.dropEnded(now, windowMs);
    const window = this.windowOf(key, now, windowMs);
    if (window.count >= this.rule.limit) throw windowFull(window.start, windowMs, now);
    window.count++;
  }

  /** `key`'s live window: its own, a new one, or past `maxKeys` the overflow window. */
  private windowOf(key: string, now: number, windowMs: number): Window {
    const current = this.windows.get(key);
    if (current && now - current.start < windowMs) return current;
    if (!current && this.windows.size >= this.maxKeys) {
      if (!this.overflow || now - this.overflow.start >= windowMs)
        this.overflow = { key, start: now, count: 0 };
      return this.overflow;
    }
    const fresh = { key, start: now, count: 0 };
    this.windows.set(key, fresh);
    this.started.push(fresh);
    return fresh;
  }

  // Windows that ended carry no information: dropping a few a hit bounds memory without a scan.
  private dropEnded(now: number, windowMs: number): void {
    for (let dropped = 0; dropped < DROPS_PER_HIT; dropped++) {
      const oldest = this.started.peek();
      if (!oldest || now - oldest.start < windowMs) return;
      this.started.shift();
      // A key whose window started anew has a later entry; this one is only stale.
      if (this.windows.get(oldest.key) === oldest) this.windows.delete(oldest.key);
    }
  }
}

/**
 * A limit shared by processes (PostgreSQL) with this process's own count in front: a client over
 * the limit in this process alone is refused here, without a statement, so a flood from one
 * client costs the database at most `limit` statements per window and process.
 */
export function sharedBehindLocal(local: RateLimiter, shared: Limiter): Limiter {
  return {
    hit(key: string) {
      local.hit(key);
      return shared.hit(key);
    },
  };
}
