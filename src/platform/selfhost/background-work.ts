/** Where a failure of work done after an answer is told (the server's logger). */
export interface BackgroundLog {
  warn(fields: object, message: string): void;
}

/**
 * Work the platform does after it has answered (a published session's rows deleted, issue 32),
 * tracked so that what depends on it (a collection, closing the database) waits for it first. A
 * failure is logged once and never thrown: the work is a clean-up whose leftovers the sweep removes.
 */
export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  /** `log`: none, failures are dropped (what they leave, the sweep removes). */
  constructor(private readonly log?: BackgroundLog) {}

  /** Starts `task` now; `what` names it in the log line of its failure. */
  start(what: string, task: () => Promise<void>): void {
    const done: Promise<void> = task()
      .catch((error: unknown) => this.log?.warn({ err: error }, `${what} failed`))
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  /**
   * Resolves once the work started before the call is done (not what starts meanwhile: a stream
   * of publishes must not hold a collection back for ever).
   */
  async settled(): Promise<void> {
    await Promise.all([...this.running]);
  }
}
