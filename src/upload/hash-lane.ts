import type { PartTarget } from "./base64-part.js";
import { Base64PartText } from "./base64-quads.js";
import type { Base64Scratch } from "./base64-scratch.js";
import type { LaneChannel } from "./part-hash-channel.js";

/**
 * A part hashed on a hashing thread (UPLOAD_HASH_THREADS). This thread cuts, checks and decodes
 * the text (`Base64PartText`, as `Base64PartSink` does) and appends the bytes to the pack; the
 * bytes then go to the thread, half a megabyte a message, which hashes their canonical base64
 * (what the received text is, or would be refused or hashed as) and answers the hash at the part's
 * end. No chunk waits for the thread, unless it has fallen megabytes behind.
 */
export class HashLane {
  private readonly text: Base64PartText;

  constructor(
    private readonly channel: LaneChannel,
    private readonly target: PartTarget | undefined,
    maxBytes: number,
    scratch?: Base64Scratch,
  ) {
    this.text = new Base64PartText(maxBytes, scratch);
  }

  /** Decoded bytes so far; all of them once `finish` has resolved. */
  get size(): number {
    return this.text.size;
  }

  async write(chunk: Buffer): Promise<void> {
    const bytes = this.text.decode(chunk)?.bytes;
    if (bytes === undefined) return;
    if (this.target) await this.target.append(bytes);
    await this.channel.hash(bytes);
  }

  /** Ends the part: resolves with its asset hash. */
  async finish(extension: string): Promise<string> {
    this.text.end();
    return this.channel.finish(extension);
  }

  /** Drops the part (its bucket was refused). */
  async abandon(): Promise<void> {
    this.channel.drop();
  }
}
