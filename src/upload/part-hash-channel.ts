import type { ToHashThread } from "./part-hash-messages.js";
import { type HashThread, type Lane, MAX_PENDING_BYTES, release } from "./part-hash-thread.js";

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

/** The channel of lane `id` (`lane`) on `thread`: its bytes batched into messages, and waits for room. */
export function laneChannel(thread: HashThread, id: number, lane: Lane): LaneChannel {
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
