import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { type Blake3Backend, defaultBlake3Backend } from "../core/blake3.js";
import { workerScript } from "../shared/worker-script.js";
import type { FromHashThread, ToHashThread } from "./part-hash-messages.js";

/**
 * The default of UPLOAD_HASH_THREADS: the cores beside the main thread, at most two, where BLAKE3
 * is WebAssembly; none where it is native. Native BLAKE3 hashes a megabyte in under a millisecond,
 * about what handing the bytes to a thread costs the main thread: there the threads saved the main
 * thread nothing measurable and cost the process a quarter more CPU; with WebAssembly they saved
 * the main thread 28-32% (BENCHMARKS.md, `npm run bench:upload-hash`).
 */
export function defaultHashThreads(backend: Blake3Backend = defaultBlake3Backend()): number {
  return backend === "native" ? 0 : Math.max(0, Math.min(2, availableParallelism() - 1));
}

/**
 * Bytes sent to a thread and not yet hashed past which a part waits: memory stays bounded when
 * the threads fall behind (many uploads at once), and nobody waits while they keep up.
 */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/** Decoded bytes of a part sent to its thread in one message. */
const BATCH_BYTES = 512 * 1024;

/** One part on a hashing thread: its decoded bytes go in order, and its hash comes back at the end. */
export interface LaneChannel {
  /** Hands decoded bytes over (unchanged by the caller after); resolves when the thread has room for more. */
  hash(bytes: Uint8Array): Promise<void> | undefined;
  /** Ends the part; resolves with its asset hash. */
  finish(extension: string): Promise<string>;
  /** Forgets the part (its bucket was refused). */
  drop(): void;
}

interface Lane {
  failure?: Error;
  done?: { resolve: (hash: string) => void; reject: (error: Error) => void };
}

interface Thread {
  worker: Worker;
  lanes: Map<number, Lane>;
  /** Bytes sent and not acknowledged as hashed. */
  pending: number;
  waitingForRoom: (() => void)[];
}

/**
 * The upload service's hashing threads (UPLOAD_HASH_THREADS): started when a part first needs one
 * and never more than `size`, each part on the thread with the fewest parts. An idle thread keeps
 * no process alive, and `close` stops them. A thread that dies fails its parts (the request
 * answers 500) and the next part starts another.
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

  /** Opens a lane for one part. */
  lane(): LaneChannel {
    if (this.closed) throw new Error("the hashing pool is closed");
    const thread = this.pick();
    const id = this.nextLane++;
    const lane: Lane = {};
    // A thread with parts keeps the process running until they are answered; an idle one does not.
    if (thread.lanes.size === 0) thread.worker.ref();
    thread.lanes.set(id, lane);
    const send = (message: ToHashThread, transfer: ArrayBuffer[] = []) =>
      thread.worker.postMessage(message, transfer);
    // Bytes gathered for the next message: one message per BATCH_BYTES, not one per body chunk (a
    // postMessage cost the main thread about as much as hashing the chunk would have), copied into
    // one new buffer that is transferred: the decoded chunks' own buffers took longer to transfer
    // than to copy.
    let batch: Uint8Array[] = [];
    let batched = 0;
    let posted = false;
    const post = (end?: string) => {
      const bytes = Buffer.allocUnsafeSlow(batched);
      let at = 0;
      for (const piece of batch) {
        bytes.set(piece, at);
        at += piece.byteLength;
      }
      thread.pending += batched;
      batch = [];
      batched = 0;
      posted = true;
      send({ lane: id, bytes: [bytes], end }, [bytes.buffer]);
    };
    return {
      hash: (bytes) => {
        if (lane.failure) throw lane.failure;
        batch.push(bytes);
        batched += bytes.byteLength;
        if (batched < BATCH_BYTES) return undefined;
        post();
        if (thread.pending <= MAX_PENDING_BYTES) return undefined;
        return new Promise<void>((resolve) => thread.waitingForRoom.push(resolve));
      },
      finish: (extension) =>
        new Promise<string>((resolve, reject) => {
          if (lane.failure) return reject(lane.failure);
          lane.done = { resolve, reject };
          post(extension);
        }),
      drop: () => {
        if (release(thread, id) && posted) send({ lane: id, drop: true });
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
    const thread: Thread = { worker, lanes: new Map(), pending: 0, waitingForRoom: [] };
    this.threads.push(thread);
    worker.on("message", (message: FromHashThread) => this.answer(thread, message));
    const fail = (reason: string) => {
      const at = this.threads.indexOf(thread);
      if (at !== -1) this.threads.splice(at, 1);
      for (const lane of thread.lanes.values()) failLane(lane, new Error(reason));
      thread.lanes.clear();
      for (const resume of thread.waitingForRoom.splice(0)) resume();
    };
    worker.on("error", (error) => fail(`a hashing thread failed: ${error.message}`));
    worker.on("exit", (code) => fail(`a hashing thread stopped (exit code ${code})`));
    // Idle, never what keeps a process running (after the listeners: adding one refs it again).
    worker.unref();
    return thread;
  }

  private answer(thread: Thread, message: FromHashThread): void {
    thread.pending -= message.acked;
    if (thread.pending <= MAX_PENDING_BYTES) {
      for (const resume of thread.waitingForRoom.splice(0)) resume();
    }
    if (!("lane" in message)) return;
    const lane = thread.lanes.get(message.lane);
    // A dropped lane's late answer is ignored.
    if (lane === undefined || !release(thread, message.lane)) return;
    if ("error" in message) return failLane(lane, new Error(message.error));
    this.partsHashed++;
    lane.done?.resolve(message.hash);
  }
}

/** Forgets a lane of `thread`; false when it was gone already. */
function release(thread: Thread, id: number): boolean {
  if (!thread.lanes.delete(id)) return false;
  if (thread.lanes.size === 0) thread.worker.unref();
  return true;
}

function failLane(lane: Lane, error: Error): void {
  lane.failure = error;
  lane.done?.reject(error);
}
