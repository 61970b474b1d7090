import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import type { AssetHasher } from "../core/asset-hash.js";
import type { PartSink } from "./multipart.js";

/** Why a part's content was refused. */
export class PartContentError extends Error {}

const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/** Where a received part's bytes are: in memory (small parts) or already in the temporary file. */
export type ReceivedBytes = { inMemory: Buffer } | { inFile: string };

/**
 * A part sink for base64 text: decodes it and hashes the canonical base64 of the decoded bytes, so
 * non-canonical padding cannot pass other content off under a hash. A part up to `memoryBytes`
 * stays in memory (written later in one call, off the request's path); a larger one streams to
 * `file`, so memory stays bounded whatever the part's size.
 */
export class Base64PartSink implements PartSink {
  private chunks: Buffer[] = [];
  private out: WriteStream | undefined;
  private closed: Promise<void> | undefined;
  private carry = "";
  private padded = false;
  size = 0;

  constructor(
    private readonly hasher: AssetHasher,
    private readonly file: string,
    private readonly limits: { maxBytes: number; memoryBytes: number },
  ) {
    hasher.reset();
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
    if (this.size > this.limits.maxBytes)
      throw new PartContentError(`content exceeds ${this.limits.maxBytes} bytes`);
    this.hasher.updateBase64(bytes.toString("base64"));
    if (!this.out && this.size <= this.limits.memoryBytes) {
      this.chunks.push(bytes);
      return;
    }
    const out = this.out ?? this.openFile();
    // `once` rejects if the stream fails while we wait, so a disk error cannot hang the request.
    if (!out.write(bytes)) await once(out, "drain");
  }

  async end(): Promise<void> {
    if (this.carry.length > 0) throw new PartContentError("base64 content is truncated");
    if (!this.out) return;
    this.out.end();
    await this.closed;
  }

  /** The bytes received, once `end` has resolved. */
  received(): ReceivedBytes {
    return this.out ? { inFile: this.file } : { inMemory: Buffer.concat(this.chunks, this.size) };
  }

  /** The asset hash of what was received, once `end` has resolved. */
  hash(extension: string): string {
    return this.hasher.finish(extension);
  }

  /** Stops writing and waits until the file is closed, so the caller can remove it. */
  async abort(): Promise<void> {
    this.chunks = [];
    if (!this.out || this.out.closed) return;
    const closed = new Promise<void>((resolve) => this.out!.once("close", () => resolve()));
    this.out.destroy();
    await closed;
  }

  private openFile(): WriteStream {
    const out = createWriteStream(this.file, { flags: "wx" });
    this.closed = new Promise<void>((resolve, reject) => {
      out.on("finish", resolve);
      out.on("error", reject);
    });
    // Observed by `end`; after `abort` the error is moot.
    this.closed.catch(() => undefined);
    for (const chunk of this.chunks) out.write(chunk);
    this.chunks = [];
    this.out = out;
    return out;
  }
}
