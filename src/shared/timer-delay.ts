/**
 * The longest delay Node's timers keep: a longer one (or a non-finite one) fires after 1 ms with a
 * warning, so an interval of a year would run continuously.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timer's delay for an interval given in seconds, never beyond what a timer keeps. */
export function timerDelayMs(seconds: number): number {
  return Math.min(seconds * 1000, MAX_TIMER_MS);
}
