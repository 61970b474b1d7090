import type { Clock } from "../../src/core/clock.js";

/**
 * A clock that runs with the system's but can be moved forward: tests of expiry, TTLs, grace
 * periods, rate-limit windows and token lifetimes advance it instead of sleeping. `freeze` stops
 * it, for tests that must land at an exact point (late in a second, a millisecond before an end).
 * It never goes back: a server's time only moves forward.
 */
export class TestClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;

  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  /** Moves the clock forward by `seconds` (fractions allowed). */
  advance(seconds: number): void {
    if (seconds < 0) throw new Error("a TestClock does not go back");
    if (this.frozenAt === undefined) this.offsetMs += seconds * 1000;
    else this.frozenAt += seconds * 1000;
  }

  /** Moves the clock forward to `ms` (milliseconds since the epoch). */
  advanceTo(ms: number): void {
    this.advance((ms - this.now()) / 1000);
  }

  /** Stops the clock where it is: from now on only `advance` and `advanceTo` move it. */
  freeze(): void {
    this.frozenAt = this.now();
  }
}
