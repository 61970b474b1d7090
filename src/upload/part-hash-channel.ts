import type { ToHashThread } from "./part-hash-messages.js";
import { type HashThread, type Lane, MAX_PENDING_BYTES, release } from "./part-hash-thread.js";

/** Decoded bytes of a part sent to its thread in one message. */
const BATCH_BYTES = 512 * 1024;
/** The first batch buffer of a part; it doubles up to BATCH_BYTES (most parts are far smaller). */
const FIRST_BATCH_BYTES = 64 * 1024;

/** One part on a hashing thread: its decoded bytes go in order, and its hash comes back at the end. */
export interface LaneChannel {
  /** Hands decoded bytes over (copied at once: the caller reuses them); resolves when the thread has room for more. */
  hash(bytes: Uint8Array): Promise<void> | undefined;
  /** Ends the part; resolves with its asset hash. */
  finish(extension: string): Promise<string>;
  /** Forgets the part (its bucket was refused). */
  drop(): void;
}

/** The channel of lane `id` (`lane`) on `thread`: its bytes batched into messages, and waits for room. */
export function laneChannel(thread: HashThread, id: number, lane: Lane): LaneChannel {
  const send = (message: ToHashThread, transfer: ArrayBuffer[] = []) =>
    thread.worker.postMessage(message, transfer);
  // Bytes gathered for the next message: one message per BATCH_BYTES, not one per body chunk (a
  // postMessage cost the main thread about as much as hashing the chunk would have), copied into
  // one buffer that is transferred: the decoded chunks' own buffers took longer to transfer than
  // to copy, and are reused by the decoder.
  let batch: Buffer | undefined;
  let batched = 0;
  let posted = false;
  const gather = (bytes: Uint8Array) => {
    const needed = batched + bytes.byteLength;
    if (batch === undefined || batch.length < needed) {
      // A part's later batches are likely whole: they start at full size.
      const next = batch !== undefined ? 2 * batch.length : posted ? BATCH_BYTES : FIRST_BATCH_BYTES;
      const bigger = Buffer.allocUnsafeSlow(Math.max(needed, Math.min(BATCH_BYTES, next)));
      if (batch !== undefined) bigger.set(batch.subarray(0, batched));
      batch = bigger;
    }
    batch.set(bytes, batched);
    batched = needed;
  };
  const post = (end?: string) => {
    const bytes = batch?.subarray(0, batched) ?? Buffer.alloc(0);
    thread.pending += batched;
    batch = undefined;
    batched = 0;
    posted = true;
    // Made by allocUnsafeSlow above: its own ArrayBuffer, never a shared one.
    send({ lane: id, bytes: [bytes], end }, bytes.length > 0 ? [bytes.buffer as ArrayBuffer] : []);
  };
  return {
    hash: (bytes) => {
      if (lane.failure) throw lane.failure;
      gather(bytes);
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
