import { FifoQueue } from "./fifo-queue.js";

/**
 * Lets at most `permits` pieces of async work run at once; the others wait their turn in the order
 * they asked, however long (unlike a pg Pool's queue, whose wait for a free client times out).
 */
export class Semaphore {
  private readonly waiting = new FifoQueue<() => void>();
  private free: number;

  constructor(permits: number) {
    if (!Number.isInteger(permits) || permits < 1)
      throw new RangeError(`permits must be ≥ 1, not ${permits}`);
    this.free = permits;
  }

  /** Runs `work` once a permit is free, and gives the permit back when it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The permit passes straight to the next in line, so no later caller can overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
