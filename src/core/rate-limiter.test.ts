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
