import type { Clock } from "../../src/core/clock.js";

/**
 * A clock that runs with the system's but can be moved forward: tests of expiry, TTLs, grace
 * periods, rate-limit windows and token lifetimes advance it instead of sleeping.
 */
export class TestClock implements Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Moves the clock forward by `seconds`. */
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}
