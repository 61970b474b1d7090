import { workerScript } from "../shared/worker-script.js";
import { type LaneChannel, laneChannel } from "./part-hash-channel.js";
import { type HashThread, openLane, startHashThread } from "./part-hash-thread.js";

export type { LaneChannel } from "./part-hash-channel.js";
export { defaultHashThreads } from "./part-hash-thread-count.js";

/**
 * The upload service's hashing threads (UPLOAD_HASH_THREADS): started when a part first needs one
 * and never more than `size`, each part on the thread with the fewest parts. An idle thread keeps
 * no process alive, and `close` stops them. A thread that dies fails its parts (the request
 * answers 500) and the next part starts another.
 */
export class PartHashPool {
  private readonly threads: HashThread[] = [];
  private nextLane = 1;
  private closed = false;
  /** Parts whose hash a thread computed (the tests read it: hashing left the main thread). */
  partsHashed = 0;

  constructor(
    readonly size: number,
    // Relative to this module: the worker script is compiled into this folder.
    private readonly script: URL = workerScript("part-hash-worker.js", import.meta.url),
  ) {
    if (size < 1) throw new Error("a hashing pool needs at least one thread");
  }

  /** Threads started and running. */
  get running(): number {
    return this.threads.length;
  }

  /** Opens a lane for one part. */
  lane(): LaneChannel {
    if (this.closed) throw new Error("the hashing pool is closed");
    const thread = this.pick();
    const id = this.nextLane++;
    return laneChannel(thread, id, openLane(thread, id));
  }

  /** Stops every thread; parts still on them fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  private pick(): HashThread {
    const idlest = this.threads.reduce<HashThread | undefined>(
      (best, thread) => (best === undefined || thread.lanes.size < best.lanes.size ? thread : best),
      undefined,
    );
    if (idlest !== undefined && (idlest.lanes.size === 0 || this.threads.length >= this.size)) return idlest;
    return this.start();
  }

  private start(): HashThread {
    const thread = startHashThread(
      this.script,
      () => this.partsHashed++,
      (gone) => {
        const at = this.threads.indexOf(gone);
        if (at !== -1) this.threads.splice(at, 1);
      },
    );
    this.threads.push(thread);
    return thread;
  }
}
