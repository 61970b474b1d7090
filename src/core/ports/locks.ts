/**
 * Runs async work one at a time per key (a project's slug), so two requests on one project (two
 * deploys, a deploy and a domain change) cannot interleave between their store and platform
 * writes. In one process an in-memory lock does; processes sharing a PostgreSQL database take its
 * advisory locks, so the rule holds across all of them.
 */
export interface Locks {
  /** Runs `work` after every earlier call with the same key has settled. */
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` only if no one (in any process sharing these locks) holds `key` now; undefined,
   * without running it, if someone does. For work one process at a time is enough for (the sweep).
   * Absent: one process, whose own guard suffices.
   */
  tryRun?<T>(key: string, work: () => Promise<T>): Promise<T | undefined>;
  /**
   * Takes the turn `name` for `ttlMs` if no one (in any process sharing these locks) holds it
   * now: true if this caller has it. For work one process should do per interval (the sweep), so
   * that many processes do it once, not once each. Absent: one process, whose turn it always is.
   */
  claimTurn?(name: string, ttlMs: number): Promise<boolean>;
}
