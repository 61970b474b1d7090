/**
 * What the upload service and its hashing threads say to each other (part-hash-pool.ts,
 * part-hash-worker.ts). A lane is one part being received; a thread takes its messages in order.
 */

/**
 * To a hashing thread: a lane's next decoded bytes (a lane starts with its first message), and at
 * its end the path's extension; or its abandonment.
 */
export type ToHashThread = { lane: number; bytes: Uint8Array[]; end?: string } | { lane: number; drop: true };

/**
 * From a hashing thread: a lane's asset hash after its end, or why it failed (the thread's fault,
 * never the content's: that was judged where it was decoded); and `acked`, the bytes it hashed
 * since it last said so, which frees room for more.
 */
export type FromHashThread =
  | { lane: number; hash: string; acked: number }
  | { lane: number; error: string; acked: number }
  | { acked: number };
