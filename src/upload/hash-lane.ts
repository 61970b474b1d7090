import type { PartTarget } from "./base64-part.js";
import { Base64Quads } from "./base64-quads.js";
import type { LaneChannel } from "./part-hash-pool.js";

/**
 * Chunks of one part a hashing thread may hold before the parser waits: enough that the main
 * thread parses the next while the thread decodes and hashes, few enough to bound memory (each at
 * most one body chunk, 64 KiB).
 */
const WINDOW = 4;

/**
 * A part decoded and hashed on a hashing thread (UPLOAD_HASH_THREADS). The main thread only cuts
 * the text into whole quads and copies them into a buffer that is then transferred, not copied
 * again; the thread hands the decoded bytes back (transferred too), and they are appended to the
 * pack in order. A refusal (not base64, too large) comes back with a chunk and is thrown by a later
 * `write` or by `finish`.
 */
export class HashLane {
  private readonly quads = new Base64Quads();
  private readonly inFlight: Promise<void>[] = [];
  private tail: Promise<void> = Promise.resolve();
  private failure: unknown;
  size = 0;

  constructor(
    private readonly channel: LaneChannel,
    private readonly target: PartTarget | undefined,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    const quads = this.quads.take(chunk);
    if (quads === undefined) return;
    // The text is a view of the body's chunk, which the parser still reads: sent as a copy that
    // belongs to the thread once posted.
    const copy = Buffer.allocUnsafeSlow(quads.length);
    quads.copy(copy);
    const decoded = this.channel.decode(copy);
    decoded.catch(() => undefined);
    const step = (this.tail = this.tail.then(async () => {
      const bytes = await decoded;
      this.size += bytes.length;
      if (this.target) await this.target.append(bytes);
    }));
    step.catch((error: unknown) => void (this.failure ??= error));
    this.inFlight.push(step);
    while (this.inFlight.length > WINDOW) await this.inFlight.shift();
  }

  /** Ends the part: resolves with its asset hash once every byte is appended. */
  async finish(extension: string): Promise<string> {
    this.quads.end();
    await this.tail;
    return this.channel.finish(extension);
  }

  /** Drops the part (its bucket was refused) and waits for an append under way to end. */
  async abandon(): Promise<void> {
    this.channel.drop();
    await this.tail.catch(() => undefined);
  }
}
