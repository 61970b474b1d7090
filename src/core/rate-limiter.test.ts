import { describe, expect, it } from "vitest";
import { RateLimitedError } from "./errors.js";
import { RateLimiter } from "./rate-limiter.js";

describe("RateLimiter", () => {
  it("hit: refuses past the limit with the seconds left, per key", () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 2, windowSeconds: 60 }, { now: () => now });
    limiter.hit("a");
    limiter.hit("a");
    limiter.hit("b");
    now = 15_000;
    let error: unknown;
    try {
      limiter.hit("a");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterSeconds).toBe(45);
  });

  it("hit: a new window starts afresh", () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 1, windowSeconds: 1 }, { now: () => now });
    limiter.hit("a");
    now = 1000;
    expect(() => limiter.hit("a")).not.toThrow();
  });
});

describe("RateLimiter memory", () => {
  it("hit: past 100,000 keys, windows that ended are dropped and live ones keep their count", () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 1, windowSeconds: 60 }, { now: () => now });
    for (let i = 0; i <= 100_000; i++) limiter.hit(`old-${i}`);
    now = 59_999;
    limiter.hit("live");
    expect(limiter.trackedKeys).toBe(100_002);
    now = 60_000;
    limiter.hit("new");
    expect(limiter.trackedKeys).toBe(2);
    expect(() => limiter.hit("live")).toThrow(RateLimitedError);
  });

  it("hit: a limit of 0 counts nothing and never refuses", () => {
    const limiter = new RateLimiter({ limit: 0, windowSeconds: 60 }, { now: () => 0 });
    for (let i = 0; i < 5; i++) limiter.hit("a");
    expect(limiter.trackedKeys).toBe(0);
  });
});
