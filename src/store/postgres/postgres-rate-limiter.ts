import { type Kysely, sql } from "kysely";
import type { Clock } from "../../core/clock.js";
import {
  DEFAULT_MAX_KEYS,
  DROPS_PER_HIT,
  type Limiter,
  type RateLimit,
  windowFull,
} from "../../core/rate-limiter.js";

/** The key of a scope's overflow window: a real key (an address, a fingerprint) is never empty. */
const OVERFLOW_KEY = "";

/**
 * The in-memory RateLimiter's fixed window per key, kept in PostgreSQL so that every API process
 * counts into one window: one atomic upsert per hit, which starts a new window once the last one
 * ended and otherwise adds one (the count stops one past the limit). `scope` names the limit
 * (several share the table). Time is the server's clock, as the in-memory limiter's.
 *
 * Bounded as the in-memory one: each hit drops at most DROPS_PER_HIT windows of its scope that
 * ended, oldest first, through the (scope, window_start) index (never a scan of every key); at
 * most `maxKeys` keys of a scope have a window of their own (rate_limit_keys counts them, kept by
 * a trigger), and past that new keys share the scope's overflow window until windows end. A live
 * window is never dropped to make room, so flooding new keys resets no one's limit. Processes
 * adding keys at the same moment may pass the bound by as many as they are.
 */
export class PostgresRateLimiter implements Limiter {
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly scope: string,
    private readonly rule: RateLimit,
    private readonly clock: Clock,
    private readonly maxKeys = DEFAULT_MAX_KEYS,
  ) {}

  async hit(key: string): Promise<void> {
    if (this.rule.limit <= 0) return;
    const now = this.clock.now();
    const windowMs = this.rule.windowSeconds * 1000;
    const window =
      (await this.countExisting(key, now, windowMs)) ??
      (await this.countNew(key, now, windowMs)) ??
      (await this.countOverflow(now, windowMs));
    if (window.count > this.rule.limit) throw windowFull(window.window_start, windowMs, now);
  }

  /** What a hit makes of a window, whether it ended (a new one starts) or not (one more). */
  private counted(now: number, windowMs: number) {
    const ended = now - windowMs;
    return sql`
      window_start = CASE WHEN w.window_start <= ${ended} THEN ${now} ELSE w.window_start END,
      count = CASE WHEN w.window_start <= ${ended} THEN 1 ELSE LEAST(w.count + 1, ${this.rule.limit + 1}) END`;
  }

  /** Counts the hit into `key`'s window, if it has one, and drops a few ended windows of others. */
  private async countExisting(key: string, now: number, windowMs: number) {
    // The dropped rows are others' (a statement may not change one row twice); skipped when
    // another process holds them, so hits never wait on each other's clean-up.
    const { rows } = await sql<Window>`
      WITH dropped AS (
        DELETE FROM rate_limit_windows WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM rate_limit_windows
          WHERE scope = ${this.scope} AND window_start <= ${now - windowMs} AND key <> ${key}
          ORDER BY window_start LIMIT ${DROPS_PER_HIT}
          FOR UPDATE SKIP LOCKED)))
      UPDATE rate_limit_windows AS w SET ${this.counted(now, windowMs)}
      WHERE scope = ${this.scope} AND key = ${key}
      RETURNING window_start, count`.execute(this.db);
    return rows[0];
  }

  /** Gives `key` a window of its own while the scope holds fewer than `maxKeys`. */
  private async countNew(key: string, now: number, windowMs: number) {
    const { rows } = await sql<Window>`
      INSERT INTO rate_limit_windows AS w (scope, key, window_start, count)
      SELECT ${this.scope}, ${key}, ${now}, 1
      WHERE COALESCE((SELECT keys FROM rate_limit_keys WHERE scope = ${this.scope}), 0) < ${this.maxKeys}
      ON CONFLICT (scope, key) DO UPDATE SET ${this.counted(now, windowMs)}
      RETURNING window_start, count`.execute(this.db);
    return rows[0];
  }

  /** Counts the hit into the scope's overflow window, shared by the keys past `maxKeys`. */
  private async countOverflow(now: number, windowMs: number): Promise<Window> {
    const { rows } = await sql<Window>`
      INSERT INTO rate_limit_windows AS w (scope, key, window_start, count)
      VALUES (${this.scope}, ${OVERFLOW_KEY}, ${now}, 1)
      ON CONFLICT (scope, key) DO UPDATE SET ${this.counted(now, windowMs)}
      RETURNING window_start, count`.execute(this.db);
    return rows[0]!;
  }
}

interface Window {
  window_start: number;
  count: number;
}
