import { AssetHasher } from "../core/asset-hash.js";
import { Base64PartSink, type PartTarget } from "./base64-part.js";
import { Base64Scratch } from "./base64-scratch.js";
import { HashLane } from "./hash-lane.js";
import type { PartHashPool } from "./part-hash-pool.js";

/**
 * Parts declared smaller than this are hashed on this thread even with hashing threads: a thread
 * costs a part three messages and a wake-up, more than hashing a few kilobytes (bench:upload-hash).
 */
export const THREAD_MIN_PART_BYTES = 64 * 1024;

/** One part's base64 body being decoded, hashed and appended to its target. */
export interface PartDecoder {
  /** Takes a chunk of the part's text; a promise returned is awaited before the next. */
  write(chunk: Buffer): Promise<void> | void;
  /** Ends the part: its asset hash, or a promise of it (`extension` is the path's, as the hash takes it). */
  finish(extension: string): string | Promise<string>;
  /** Decoded bytes so far; all of them once `finish` has resolved. */
  readonly size: number;
  /** Forgets the part, its bucket refused. */
  abandon(): Promise<void>;
}

/**
 * Where one bucket's parts are hashed: on the hashing threads when there is a pool (but small
 * parts), else on this thread with one hasher for all the bucket's parts, a chunk at a time. Its
 * parts, one after another, are decoded through one scratch.
 */
export class PartDecoders {
  private hasher: AssetHasher | undefined;
  private readonly scratch = new Base64Scratch();

  constructor(private readonly pool: PartHashPool | undefined) {}

  /**
   * Starts a part of at most `maxBytes` decoded bytes, appended to `target` when there is one; its
   * manifest entry declared `declaredSize`.
   */
  open(
    target: PartTarget | undefined,
    maxBytes: number,
    declaredSize: number,
  ): PartDecoder | Promise<PartDecoder> {
    if (this.pool !== undefined && declaredSize >= THREAD_MIN_PART_BYTES) {
      return new HashLane(this.pool.lane(), target, maxBytes, this.scratch);
    }
    // The sink itself, not an object literal around it: one with a getter cost a runtime call to
    // make, for every part (about a microsecond; 44 ms of a 50,000-file deploy's profile). Made at
    // once once the hasher is: a promise is only for the bucket's first part.
    if (this.hasher) return new Base64PartSink(this.hasher, target, maxBytes, this.scratch);
    return AssetHasher.create().then((hasher) => {
      this.hasher = hasher;
      return new Base64PartSink(hasher, target, maxBytes, this.scratch);
    });
  }
}
