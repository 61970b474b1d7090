import type { PartTarget } from "./base64-part.js";
import { Base64Quads, decodeQuads } from "./base64-quads.js";
import type { LaneChannel } from "./part-hash-pool.js";

/**
 * A part hashed on a hashing thread (UPLOAD_HASH_THREADS). This thread cuts, checks and decodes
 * the text and appends the bytes to the pack, as `Base64PartSink` does; the bytes then go to the
 * thread, half a megabyte a message, which hashes their canonical base64 (what the received text
 * is, or would be refused or hashed as) and answers the hash at the part's end. No chunk waits for
 * the thread, unless it has fallen megabytes behind.
 */
export class HashLane {
  private readonly quads = new Base64Quads();
  size = 0;

  constructor(
    private readonly channel: LaneChannel,
    private readonly target: PartTarget | undefined,
    private readonly maxBytes: number,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    const quads = this.quads.take(chunk);
    if (quads === undefined) return;
    const { bytes } = decodeQuads(quads, this.size, this.maxBytes);
    this.size += bytes.length;
    if (this.target) await this.target.append(bytes);
    await this.channel.hash(bytes);
  }

  /** Ends the part: resolves with its asset hash. */
  async finish(extension: string): Promise<string> {
    this.quads.end();
    return this.channel.finish(extension);
  }

  /** Drops the part (its bucket was refused). */
  async abandon(): Promise<void> {
    this.channel.drop();
  }
}
