import { Worker } from "node:worker_threads";
import type { FromHashThread } from "./part-hash-messages.js";

/**
 * Bytes sent to a thread and not yet hashed past which a part waits: memory stays bounded when
 * the threads fall behind (many uploads at once), and nobody waits while they keep up.
 */
export const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/** One part on a hashing thread: why it failed, or who waits for its hash once it has ended. */
export interface Lane {
  failure?: Error;
  done?: { resolve: (hash: string) => void; reject: (error: Error) => void };
}

/** A hashing thread as the pool sees it: its worker, its parts (lanes) and what it owes. */
export interface HashThread {
  worker: Worker;
  lanes: Map<number, Lane>;
  /** Bytes sent and not acknowledged as hashed. */
  pending: number;
  waitingForRoom: (() => void)[];
}

/**
 * Starts a thread running `script`, idle (it keeps no process alive until it has a part).
 * `hashed` is told of each part whose hash it answers, before the part's waiter; `gone` of the
 * thread failing or stopping, before its parts fail and whoever waits for room is let go.
 */
export function startHashThread(
  script: URL,
  hashed: () => void,
  gone: (thread: HashThread) => void,
): HashThread {
  const worker = new Worker(script);
  const thread: HashThread = { worker, lanes: new Map(), pending: 0, waitingForRoom: [] };
  worker.on("message", (message: FromHashThread) => answer(thread, message, hashed));
  const fail = (reason: string) => {
    gone(thread);
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

/** Gives `thread` a new lane `id`. */
export function openLane(thread: HashThread, id: number): Lane {
  const lane: Lane = {};
  // A thread with parts keeps the process running until they are answered; an idle one does not.
  if (thread.lanes.size === 0) thread.worker.ref();
  thread.lanes.set(id, lane);
  return lane;
}

/** Forgets a lane of `thread`; false when it was gone already. */
export function release(thread: HashThread, id: number): boolean {
  if (!thread.lanes.delete(id)) return false;
  if (thread.lanes.size === 0) thread.worker.unref();
  return true;
}

/** Takes a thread's message: room freed for more bytes, and a lane's hash or failure. */
function answer(thread: HashThread, message: FromHashThread, hashed: () => void): void {
  thread.pending -= message.acked;
  if (thread.pending <= MAX_PENDING_BYTES) {
    for (const resume of thread.waitingForRoom.splice(0)) resume();
  }
  if (!("lane" in message)) return;
  const lane = thread.lanes.get(message.lane);
  // A dropped lane's late answer is ignored.
  if (lane === undefined || !release(thread, message.lane)) return;
  if ("error" in message) return failLane(lane, new Error(message.error));
  hashed();
  lane.done?.resolve(message.hash);
}

function failLane(lane: Lane, error: Error): void {
  lane.failure = error;
  lane.done?.reject(error);
}
