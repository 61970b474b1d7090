/**
 * What the upload service and its hashing threads say to each other (part-hash-pool.ts,
 * part-hash-worker.ts). A lane is one part being received; its messages are answered in order.
 */

/** To a hashing thread: start a lane, a chunk of whole base64 quads, its end, or its abandonment. */
export type ToHashThread =
  | { lane: number; open: { maxBytes: number } }
  | { lane: number; quads: Uint8Array }
  | { lane: number; end: string }
  | { lane: number; drop: true };

/**
 * From a hashing thread: a chunk's decoded bytes, the lane's asset hash after its end, or why the
 * lane was refused (`content`: the content's fault, a 400; else the thread's).
 */
export type FromHashThread =
  | { lane: number; bytes: Uint8Array }
  | { lane: number; hash: string }
  | { lane: number; error: string; content: boolean };
