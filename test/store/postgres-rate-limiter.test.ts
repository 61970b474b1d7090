import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { RateLimitedError } from "../../src/core/errors.js";
import type { Limiter } from "../../src/core/rate-limiter.js";
import { openPostgres } from "../../src/shared/database/postgres.js";
import { openPostgresMetadata, type PostgresMetadata } from "../../src/store/index.js";
import { TestClock } from "../support/clock.js";
import { describePostgres, testPostgres } from "../support/postgres.js";

const opened: PostgresMetadata[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
});

/** Two API processes' limiters of one rule, on one database, on one clock. */
async function twoLimiters(limit: number, clock: TestClock): Promise<[Limiter, Limiter]> {
  const options = testPostgres();
  const first = await openPostgresMetadata(options);
  const second = await openPostgresMetadata(options);
  opened.push(first, second);
  const rule = { limit, windowSeconds: 60 };
  return [first.limiter("create", rule, clock), second.limiter("create", rule, clock)];
}

async function refusal(work: void | Promise<void>): Promise<unknown> {
  return Promise.resolve(work).then(
    () => undefined,
    (error: unknown) => error,
  );
}

await describePostgres("a rate limit shared on PostgreSQL", () => {
  it("PostgresRateLimiter: two processes count into one window per key; past the limit either refuses with the seconds left", async () => {
    const clock = new TestClock();
    clock.freeze();
    const [a, b] = await twoLimiters(3, clock);
    await a.hit("203.0.113.7");
    await b.hit("203.0.113.7");
    await a.hit("203.0.113.7");
    await b.hit("198.51.100.1"); // another key has its own window
    clock.advance(15);
    for (const limiter of [a, b]) {
      const error = await refusal(limiter.hit("203.0.113.7"));
      expect(error).toBeInstanceOf(RateLimitedError);
      expect((error as RateLimitedError).retryAfterSeconds).toBe(45);
    }
    await b.hit("198.51.100.1");
    clock.advance(45); // the window ended: a new one starts afresh
    await b.hit("203.0.113.7");
  });

  it("PostgresRateLimiter: 20 hits at once through two processes with a limit of 5: exactly 5 pass", async () => {
    const clock = new TestClock();
    clock.freeze();
    const [a, b] = await twoLimiters(5, clock);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, n) => refusal((n % 2 === 0 ? a : b).hit("fingerprint"))),
    );
    expect(outcomes.filter((o) => o === undefined)).toHaveLength(5);
    for (const o of outcomes.filter((o) => o !== undefined)) expect(o).toBeInstanceOf(RateLimitedError);
  });

  it("PostgresRateLimiter: a limit of 0 never refuses, as the in-memory limiter", async () => {
    const clock = new TestClock();
    clock.freeze();
    const [a, b] = await twoLimiters(0, clock);
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, n) => refusal((n % 2 === 0 ? a : b).hit("unlimited"))),
    );
    expect(outcomes).toEqual(Array.from({ length: 6 }, () => undefined));
  });

  it("PostgresRateLimiter: a hit drops at most DROPS_PER_HIT windows that ended, oldest first, never a live one", async () => {
    const clock = new TestClock();
    clock.freeze();
    const { limiter, windows, close } = await oneLimiter(
      "drops",
      { limit: 5, windowSeconds: 60 },
      1000,
      clock,
    );
    try {
      for (let n = 1; n <= 10; n++) {
        await limiter.hit(`key-${n}`);
        clock.advance(1); // a second apart: key-1's window is the oldest
      }
      clock.advance(51); // key-1 .. key-10 started 61 .. 52 s ago: only key-1 and key-2 ended
      await limiter.hit("fresh");
      expect(await windows()).toEqual([...keys(3, 10), "fresh"].sort());
      clock.advance(60); // all ended now
      await limiter.hit("fresh");
      expect(await windows()).toEqual([...keys(5, 10), "fresh"].sort());
    } finally {
      await close();
    }
  });

  it("PostgresRateLimiter: at maxKeys, new keys share one overflow window; flooding new keys resets no one's limit", async () => {
    const clock = new TestClock();
    clock.freeze();
    const { limiter, windows, close } = await oneLimiter("bound", { limit: 2, windowSeconds: 60 }, 3, clock);
    try {
      for (const key of ["a", "b", "c"]) await limiter.hit(key);
      await limiter.hit("a");
      expect(await refusal(limiter.hit("a"))).toBeInstanceOf(RateLimitedError);
      // The scope holds 3 keys: the next ones share one window of 2 hits.
      await limiter.hit("flood-1");
      await limiter.hit("flood-2");
      expect(await refusal(limiter.hit("flood-3"))).toBeInstanceOf(RateLimitedError);
      expect(await refusal(limiter.hit("flood-4"))).toBeInstanceOf(RateLimitedError);
      // No live window was dropped to make room: "a" is still at its limit, "b" still has one.
      expect(await windows()).toEqual(["", "a", "b", "c"]);
      expect(await refusal(limiter.hit("a"))).toBeInstanceOf(RateLimitedError);
      await limiter.hit("b");
      // Once windows end, they are dropped as hits come, and new keys get windows of their own.
      clock.advance(60);
      await limiter.hit("d");
      await limiter.hit("e");
      expect(await windows()).toContain("e");
      await limiter.hit("a");
    } finally {
      await close();
    }
  });

  it("PostgresRateLimiter: with 200,000 ended windows a hit drops two through the (scope, window_start) index, not a scan", async () => {
    const clock = new TestClock();
    clock.freeze();
    const { limiter, db, close } = await oneLimiter(
      "many",
      { limit: 5, windowSeconds: 60 },
      1_000_000,
      clock,
    );
    try {
      const ended = clock.now() - 120_000;
      await sql`INSERT INTO rate_limit_windows (scope, key, window_start, count)
        SELECT 'many', 'k' || n, ${ended}::bigint + n, 1 FROM generate_series(1, 200000) AS n`.execute(db);
      await sql`ANALYZE rate_limit_windows`.execute(db);
      const count = async () =>
        (
          await sql<{
            n: number;
          }>`SELECT count(*)::int AS n FROM rate_limit_windows WHERE scope = 'many'`.execute(db)
        ).rows[0]!.n;
      const started = performance.now();
      for (let n = 0; n < 50; n++) await limiter.hit(`new-${n}`);
      const perHitMs = (performance.now() - started) / 50;
      console.log(`200,000 ended windows: ${perHitMs.toFixed(2)} ms a hit`);
      // 50 new windows, 100 ended ones dropped, the oldest first.
      expect(await count()).toBe(200_000 + 50 - 100);
      const { rows } = await sql<{ key: string }>`SELECT key FROM rate_limit_windows
        WHERE scope = 'many' AND key IN ('k1', 'k100', 'k101') ORDER BY key`.execute(db);
      expect(rows.map((r) => r.key)).toEqual(["k101"]);
      const plan = await sql<{ "QUERY PLAN": string }>`EXPLAIN SELECT ctid FROM rate_limit_windows
        WHERE scope = 'many' AND window_start <= ${clock.now() - 60_000} AND key <> 'x'
        ORDER BY window_start LIMIT 2 FOR UPDATE SKIP LOCKED`.execute(db);
      expect(plan.rows.map((r) => r["QUERY PLAN"]).join("\n")).toContain("rate_limit_windows_started");
    } finally {
      await close();
    }
  });
});

/** One limiter of `scope` on a fresh database, the keys that hold a window, and the database itself. */
async function oneLimiter(
  scope: string,
  rule: { limit: number; windowSeconds: number },
  maxKeys: number,
  clock: TestClock,
) {
  const options = testPostgres();
  const metadata = await openPostgresMetadata(options);
  opened.push(metadata);
  const db = await openPostgres<unknown>(options);
  return {
    limiter: metadata.limiter(scope, rule, clock, maxKeys),
    db,
    windows: async () => {
      const { rows } = await sql<{ key: string }>`SELECT key FROM rate_limit_windows
        WHERE scope = ${scope} ORDER BY key COLLATE "C"`.execute(db);
      return rows.map((r) => r.key);
    },
    close: () => db.destroy(),
  };
}

/** `key-from` .. `key-to`. */
function keys(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => `key-${from + i}`);
}
