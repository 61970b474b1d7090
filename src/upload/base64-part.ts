import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { AssetHasher } from "../core/asset-hash.js";
import type { PartSink } from "./multipart.js";

/** Why a part's content was refused. */
export class PartContentError extends Error {}

const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/**
 * A part sink for base64 text: writes the decoded bytes to `file` and hashes the canonical base64
 * of those bytes, so non-canonical padding cannot pass other content off under a hash. Memory
 * stays at one chunk whatever the part's size.
 */
export class Base64FileSink implements PartSink {
  private readonly out: WriteStream;
  private readonly closed: Promise<void>;
  private carry = "";
  private padded = false;
  size = 0;

  private constructor(
    private readonly hasher: AssetHasher,
    file: string,
    private readonly maxBytes: number,
  ) {
    this.out = createWriteStream(file, { flags: "wx" });
    this.closed = new Promise<void>((resolve, reject) => {
      this.out.on("finish", resolve);
      this.out.on("error", reject);
    });
    // Observed by `end`; after `abort` the error is moot.
    this.closed.catch(() => undefined);
  }

  /** A sink writing to `file`, refusing content over `maxBytes`. */
  static async create(file: string, maxBytes: number): Promise<Base64FileSink> {
    return new Base64FileSink(await AssetHasher.create(), file, maxBytes);
  }

  async write(chunk: Buffer): Promise<void> {
    const text = this.carry + chunk.toString("latin1");
    if (NOT_BASE64.test(text)) throw new PartContentError("content is not base64");
    if (this.padded && text.length > 0) throw new PartContentError("content continues after base64 padding");
    const usable = text.length - (text.length % 4);
    this.carry = text.slice(usable);
    if (usable === 0) return;
    const quads = text.slice(0, usable);
    const pad = quads.indexOf("=");
    if (pad !== -1) {
      if (pad < usable - 2 || !/^=+$/.test(quads.slice(pad))) {
        throw new PartContentError("base64 padding in the middle of content");
      }
      this.padded = true;
    }
    const bytes = Buffer.from(quads, "base64");
    this.size += bytes.length;
    if (this.size > this.maxBytes) throw new PartContentError(`content exceeds ${this.maxBytes} bytes`);
    this.hasher.updateBase64(bytes.toString("base64"));
    // `once` rejects if the stream fails while we wait, so a disk error cannot hang the request.
    if (!this.out.write(bytes)) await once(this.out, "drain");
  }

  async end(): Promise<void> {
    if (this.carry.length > 0) throw new PartContentError("base64 content is truncated");
    this.out.end();
    await this.closed;
  }

  /** The asset hash of what was written, once `end` has resolved. */
  hash(extension: string): string {
    return this.hasher.finish(extension);
  }

  /**
   * Stops writing and resolves once the file is closed. The file may still be opening when a part
   * is refused (on its first chunk); only after `close` can the caller remove it for good.
   */
  async abort(): Promise<void> {
    if (this.out.closed) return;
    const closed = new Promise<void>((resolve) => this.out.once("close", () => resolve()));
    this.out.destroy();
    await closed;
  }
}
