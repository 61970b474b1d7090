import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { workerScript } from "../shared/worker-script.js";
import type { FromHashThread, ToHashThread } from "./part-hash-messages.js";
import { PartContentError } from "./part-content-error.js";

/** The default of UPLOAD_HASH_THREADS: the cores beside the main thread, at most two. */
export function defaultHashThreads(): number {
  return Math.max(0, Math.min(2, availableParallelism() - 1));
}

/** One part on a hashing thread: chunks go in order, their decoded bytes and then the hash come back. */
export interface LaneChannel {
  /** Sends whole base64 quads, in a buffer of their own (transferred); resolves with their bytes. */
  decode(quads: Uint8Array): Promise<Uint8Array>;
  /** Ends the part; resolves with its asset hash once every chunk before was decoded. */
  finish(extension: string): Promise<string>;
  /** Forgets the part (its bucket was refused): what is pending is rejected, the thread frees it. */
  drop(): void;
}

type Waiter = { resolve: (value: never) => void; reject: (error: Error) => void };

interface Thread {
  worker: Worker;
  lanes: Map<number, Waiter[]>;
}

/**
 * The upload service's hashing threads (UPLOAD_HASH_THREADS): started when a part first needs one
 * and never more than `size`, each part on the thread with the fewest parts. They keep no process
 * alive, and `close` stops them. A thread that dies fails its parts (the request answers 500) and
 * the next part starts another.
 */
export class PartHashPool {
  private readonly threads: Thread[] = [];
  private nextLane = 1;
  private closed = false;
  /** Parts whose hash a thread computed (the tests read it: hashing left the main thread). */
  partsHashed = 0;

  constructor(
    readonly size: number,
    private readonly script: URL = workerScript("part-hash-worker.js", import.meta.url),
  ) {
    if (size < 1) throw new Error("a hashing pool needs at least one thread");
  }

  /** Threads started and running. */
  get running(): number {
    return this.threads.length;
  }

  /** Opens a lane for one part of at most `maxBytes` decoded bytes. */
  lane(maxBytes: number): LaneChannel {
    if (this.closed) throw new Error("the hashing pool is closed");
    const thread = this.pick();
    const id = this.nextLane++;
    const waiters: Waiter[] = [];
    thread.lanes.set(id, waiters);
    const send = (message: ToHashThread, transfer: ArrayBuffer[] = []) =>
      thread.worker.postMessage(message, transfer);
    const ask = <T>(message: ToHashThread, transfer?: ArrayBuffer[]) =>
      new Promise<T>((resolve, reject) => {
        if (!thread.lanes.has(id)) return reject(new Error("the part's hashing lane is closed"));
        waiters.push({ resolve: resolve as (value: never) => void, reject });
        send(message, transfer);
      });
    send({ lane: id, open: { maxBytes } });
    return {
      decode: (quads) => ask<Uint8Array>({ lane: id, quads }, [quads.buffer as ArrayBuffer]),
      finish: (extension) => ask<string>({ lane: id, end: extension }),
      drop: () => {
        if (!thread.lanes.delete(id)) return;
        send({ lane: id, drop: true });
        for (const waiter of waiters.splice(0)) waiter.reject(new Error("the part was dropped"));
      },
    };
  }

  /** Stops every thread; parts still on them fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  private pick(): Thread {
    const idlest = this.threads.reduce<Thread | undefined>(
      (best, thread) => (best === undefined || thread.lanes.size < best.lanes.size ? thread : best),
      undefined,
    );
    if (idlest !== undefined && (idlest.lanes.size === 0 || this.threads.length >= this.size)) return idlest;
    return this.start();
  }

  private start(): Thread {
    const worker = new Worker(this.script);
    // Never what keeps a process running: at shutdown it stops with the process.
    worker.unref();
    const thread: Thread = { worker, lanes: new Map() };
    this.threads.push(thread);
    worker.on("message", (message: FromHashThread) => this.answer(thread, message));
    const fail = (reason: string) => {
      const at = this.threads.indexOf(thread);
      if (at !== -1) this.threads.splice(at, 1);
      for (const waiters of thread.lanes.values()) {
        for (const waiter of waiters.splice(0)) waiter.reject(new Error(reason));
      }
      thread.lanes.clear();
    };
    worker.on("error", (error) => fail(`a hashing thread failed: ${error.message}`));
    worker.on("exit", (code) => fail(`a hashing thread stopped (exit code ${code})`));
    return thread;
  }

  private answer(thread: Thread, message: FromHashThread): void {
    const waiters = thread.lanes.get(message.lane);
    // A dropped lane's late answers are ignored.
    if (waiters === undefined) return;
    if ("error" in message) {
      thread.lanes.delete(message.lane);
      const error = message.content ? new PartContentError(message.error) : new Error(message.error);
      for (const waiter of waiters.splice(0)) waiter.reject(error);
      return;
    }
    const waiter = waiters.shift();
    if ("hash" in message) {
      thread.lanes.delete(message.lane);
      this.partsHashed++;
      waiter?.resolve(message.hash as never);
    } else {
      waiter?.resolve(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength) as never);
    }
  }
}
