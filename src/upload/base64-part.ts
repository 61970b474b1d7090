import type { AssetHasher } from "../core/asset-hash.js";
import { Base64PartText } from "./base64-quads.js";
import type { Base64Scratch } from "./base64-scratch.js";
import type { PartSink } from "./multipart.js";

export { PartContentError } from "./part-content-error.js";

/** Where a part's decoded bytes go: appended to the bucket's pack, or nowhere (held already). */
export interface PartTarget {
  /** Takes the bytes (a view of a reused buffer: copied or written before it resolves or returns, not kept). */
  append(bytes: Uint8Array): Promise<void> | void;
}

/**
 * A part sink for base64 text that decodes and hashes on this thread (UPLOAD_HASH_THREADS=0; else
 * `HashLane` does it on a hashing thread): hashes the canonical base64 of the decoded bytes. The
 * decoded bytes go straight to `target` as they come (memory stays bounded whatever the part's
 * size); the caller keeps them only once the hash matches.
 */
export class Base64PartSink implements PartSink {
  private readonly text: Base64PartText;

  constructor(
    private readonly hasher: AssetHasher,
    private readonly target: PartTarget | undefined,
    maxBytes: number,
    scratch?: Base64Scratch,
  ) {
    hasher.reset();
    this.text = new Base64PartText(maxBytes, scratch);
  }

  /** Decoded bytes so far. */
  get size(): number {
    return this.text.size;
  }

  /** Decodes, hashes and appends a chunk; a promise only when the target's append returns one. */
  write(chunk: Buffer): Promise<void> | void {
    const decoded = this.text.decode(chunk);
    if (decoded === undefined) return;
    const { quads, bytes, canonical } = decoded;
    // Canonical text is hashed as it came, as bytes: no string is made of it again.
    this.hasher.updateBase64(canonical ? quads : bytes.toString("base64"));
    return this.target?.append(bytes);
  }

  end(): void {
    this.text.end();
  }

  /** The asset hash of what was received, once `end` has resolved. */
  hash(extension: string): string {
    return this.hasher.finish(extension);
  }

  /** Ends the part and gives its asset hash (`end`, then `hash`): what `PartDecoder` asks. */
  finish(extension: string): string {
    this.text.end();
    return this.hash(extension);
  }

  /** Nothing to drop: its bytes went to the target, which the refused bucket discards. */
  async abandon(): Promise<void> {}
}
