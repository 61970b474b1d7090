/**
 * Lets every callback that is ready run (I/O first: requests of the edge, the upload service and
 * the API), then resumes. Long work on the one thread the service runs on pauses so between slices.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** How long one slice of long synchronous work may hold the thread, by default. */
export const SLICE_MS = 20;

/**
 * Paces long synchronous work into slices: the work asks `due()` now and then (cheap), and once a
 * slice has lasted `sliceMs` awaits `next()`, which yields to the event loop and starts the next.
 */
export class Pacer {
  private started: number;
  /** How many times the work yielded (for tests and logs). */
  pauses = 0;

  /** `now`: the clock slices are timed by, in milliseconds (tests set it). */
  constructor(
    readonly sliceMs = SLICE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  due(): boolean {
    return this.spent() >= this.sliceMs;
  }

  /** Milliseconds the current slice has held the thread so far. */
  spent(): number {
    return this.now() - this.started;
  }

  async next(): Promise<void> {
    this.pauses++;
    await yieldToEventLoop();
    this.started = this.now();
  }
}

/**
 * Calls `visit` on each item in order, paced by `pacer`: the time is read every 256 items (reading
 * it costs more than most visits), so a slice overruns by 256 visits at most.
 */
export async function forEachPaced<T>(
  items: readonly T[],
  pacer: Pacer,
  visit: (item: T, index: number) => void,
): Promise<void> {
  for (let i = 0; i < items.length; i++) {
    if ((i & 255) === 255 && pacer.due()) await pacer.next();
    visit(items[i]!, i);
  }
}
