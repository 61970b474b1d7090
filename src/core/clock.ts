/**
 * Where every part of the service takes the time from, in milliseconds since the epoch: the
 * system's by default; tests pass one they can move, instead of sleeping.
 */
export interface Clock {
  now(): number;
}

/** The system clock. */
export const systemClock: Clock = { now: () => Date.now() };
