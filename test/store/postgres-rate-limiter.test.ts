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

  it("PostgresRateLimiter: every 1,000th hit drops the windows that ended, and only then", async () => {
    const clock = new TestClock();
    clock.freeze();
    const options = testPostgres();
    const metadata = await openPostgresMetadata(options);
    opened.push(metadata);
    const limiter = metadata.limiter("prune", { limit: 5, windowSeconds: 60 }, clock);
    const db = await openPostgres<unknown>(options);
    const windows = async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rate_limit_windows
        WHERE scope = 'prune'`.execute(db);
      return rows[0]?.n;
    };
    try {
      for (let n = 1; n <= 998; n++) await limiter.hit(`key-${n}`);
      clock.advance(60); // every window so far has ended
      await limiter.hit("hit-999");
      expect(await windows()).toBe(999);
      await limiter.hit("hit-1000");
      expect(await windows()).toBe(2);
    } finally {
      await db.destroy();
    }
  });
});
