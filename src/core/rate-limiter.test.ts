import { describe, expect, it } from "vitest";
import { RateLimitedError } from "./errors.js";
import { DROPS_PER_HIT, RateLimiter, sharedBehindLocal } from "./rate-limiter.js";

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
  /** A limiter of one hit a minute holding `keys` windows that all ended by `now` = 60 s. */
  function endedWindows(keys: number, maxKeys: number) {
    const clock = { at: 0, now: () => clock.at };
    const limiter = new RateLimiter({ limit: 1, windowSeconds: 60 }, clock, maxKeys);
    for (let i = 0; i < keys; i++) limiter.hit(`old-${i}`);
    clock.at = 60_000;
    return { limiter, clock };
  }

  it("hit: a hit drops at most DROPS_PER_HIT ended windows whether 100 or 1,000,000 are held: its work does not grow with the keys", () => {
    for (const keys of [100, 1_000_000]) {
      const { limiter } = endedWindows(keys, 2_000_000);
      expect(limiter.trackedKeys).toBe(keys);
      limiter.hit("new");
      // The hit dropped DROPS_PER_HIT windows at the head of the queue and added its own: it
      // never scanned the rest.
      expect(limiter.trackedKeys, `${keys} keys`).toBe(keys - DROPS_PER_HIT + 1);
    }
  });

  it("hit: ended windows drain as hits go on, and live ones keep their count", () => {
    const { limiter, clock } = endedWindows(1_000, 100_000);
    clock.at = 59_999;
    limiter.hit("live"); // started just before the others ended
    clock.at = 60_000;
    for (let i = 0; i < 1_000; i++) limiter.hit(`new-${i}`);
    expect(limiter.trackedKeys).toBe(1_001);
    expect(() => limiter.hit("live")).toThrow(RateLimitedError);
  });

  it("hit: a key whose window started anew keeps it when its stale entry is dropped", () => {
    const { limiter, clock } = endedWindows(1, 100);
    limiter.hit("old-0"); // a new window for old-0, at 60 s; its first entry is stale
    clock.at = 60_001;
    limiter.hit("other");
    expect(() => limiter.hit("old-0")).toThrow(RateLimitedError);
  });

  it("hit: at maxKeys, new keys share one overflow window and no live window is dropped or reset", () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 2, windowSeconds: 60 }, { now: () => now }, 3);
    for (const key of ["a", "b", "c"]) limiter.hit(key);
    limiter.hit("a");
    // The bound holds: d and e count into one window of 2 hits, beside a, b and c.
    limiter.hit("d");
    limiter.hit("e");
    expect(() => limiter.hit("f")).toThrow(RateLimitedError);
    expect(limiter.trackedKeys).toBe(3);
    // Flooding new keys did not reset a's window.
    expect(() => limiter.hit("a")).toThrow(RateLimitedError);
    // Once windows end, new keys get their own again.
    now = 60_000;
    limiter.hit("f");
    limiter.hit("f");
    expect(() => limiter.hit("f")).toThrow(RateLimitedError);
    expect(limiter.trackedKeys).toBeLessThanOrEqual(3);
  });

  it("hit: a limit of 0 counts nothing and never refuses", () => {
    const limiter = new RateLimiter({ limit: 0, windowSeconds: 60 }, { now: () => 0 });
    for (let i = 0; i < 5; i++) limiter.hit("a");
    expect(limiter.trackedKeys).toBe(0);
  });
});

describe("sharedBehindLocal", () => {
  it("hit: under this process's limit the shared limiter decides; over it, refused here without asking the shared one", async () => {
    const asked: string[] = [];
    const shared = {
      hit: async (key: string) => {
        asked.push(key);
        if (key === "full") throw new RateLimitedError(30);
      },
    };
    const limiter = sharedBehindLocal(
      new RateLimiter({ limit: 2, windowSeconds: 60 }, { now: () => 0 }),
      shared,
    );
    await limiter.hit("a");
    await expect(async () => limiter.hit("full")).rejects.toBeInstanceOf(RateLimitedError);
    await limiter.hit("a");
    expect(() => limiter.hit("a")).toThrow(RateLimitedError);
    expect(asked).toEqual(["a", "full", "a"]);
  });
});
