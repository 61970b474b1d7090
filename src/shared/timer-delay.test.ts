import { describe, expect, it } from "vitest";
import { MAX_TIMER_MS, timerDelayMs } from "./timer-delay.js";

describe("timerDelayMs", () => {
  it("timerDelayMs: seconds as milliseconds, a year held at the longest delay a timer keeps", () => {
    expect(timerDelayMs(60)).toBe(60_000);
    expect(timerDelayMs(86_400 * 365)).toBe(MAX_TIMER_MS);
  });

  it("timerDelayMs: a clamped interval really waits (a timer given more fires at once)", async () => {
    const fired = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(true), timerDelayMs(86_400 * 365));
      setTimeout(() => {
        clearTimeout(timer);
        resolve(false);
      }, 20);
    });
    expect(fired).toBe(false);
  });
});
