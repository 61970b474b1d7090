import { type Kysely, sql } from "kysely";
import type { Clock } from "../../core/clock.js";
import { type Limiter, type RateLimit, windowFull } from "../../core/rate-limiter.js";

/** Hits between two sweeps of the windows that ended. */
const PRUNE_EVERY = 1_000;

/**
 * The in-memory RateLimiter's fixed window per key, kept in PostgreSQL so that every API process
 * counts into one window: one atomic upsert per hit, which starts a new window once the last one
 * ended and otherwise adds one (the count stops one past the limit). `scope` names the limit
 * (several share the table). Time is the server's clock, as the in-memory limiter's.
 */
export class PostgresRateLimiter implements Limiter {
  private hits = 0;

  constructor(
    private readonly db: Kysely<unknown>,
    private readonly scope: string,
    private readonly rule: RateLimit,
    private readonly clock: Clock,
  ) {}

  async hit(key: string): Promise<void> {
    if (this.rule.limit <= 0) return;
    const now = this.clock.now();
    const windowMs = this.rule.windowSeconds * 1000;
    const ended = now - windowMs;
    const { rows } = await sql<{ window_start: number; count: number }>`
      INSERT INTO rate_limit_windows AS w (scope, key, window_start, count)
      VALUES (${this.scope}, ${key}, ${now}, 1)
      ON CONFLICT (scope, key) DO UPDATE SET
        window_start = CASE WHEN w.window_start <= ${ended} THEN ${now} ELSE w.window_start END,
        count = CASE WHEN w.window_start <= ${ended} THEN 1 ELSE LEAST(w.count + 1, ${this.rule.limit + 1}) END
      RETURNING window_start, count`.execute(this.db);
    if (++this.hits % PRUNE_EVERY === 0) await this.prune(ended);
    const window = rows[0];
    if (window && window.count > this.rule.limit) throw windowFull(window.window_start, windowMs, now);
  }

  // Windows that ended count nothing: dropping them bounds the table under a flood of keys.
  private async prune(ended: number): Promise<void> {
    await sql`DELETE FROM rate_limit_windows WHERE scope = ${this.scope} AND window_start <= ${ended}`.execute(
      this.db,
    );
  }
}
