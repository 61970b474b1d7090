import type { AssetHasher } from "../core/asset-hash.js";
import type { PartSink } from "./multipart.js";

/** Why a part's content was refused. */
export class PartContentError extends Error {}

const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/**
 * Refuses base64 text that is not canonical for a reason other than its padding bits: a character
 * outside the alphabet, or padding before the end. Non-canonical padding bits are accepted (the
 * hash is over the canonical text).
 */
function checkBase64(quads: string): void {
  if (NOT_BASE64.test(quads)) throw new PartContentError("content is not base64");
  const pad = quads.indexOf("=");
  if (pad !== -1 && (pad < quads.length - 2 || !/^=+$/.test(quads.slice(pad)))) {
    throw new PartContentError("base64 padding in the middle of content");
  }
}

/** Where a part's decoded bytes go: appended to the bucket's pack, or nowhere (held already). */
export interface PartTarget {
  append(bytes: Uint8Array): Promise<void>;
}

/**
 * A part sink for base64 text: decodes it and hashes the canonical base64 of the decoded bytes, so
 * non-canonical padding cannot pass other content off under a hash. The decoded bytes go straight
 * to `target` as they come (memory stays bounded whatever the part's size); the caller keeps them
 * only once the hash matches.
 */
export class Base64PartSink implements PartSink {
  private carry = "";
  private padded = false;
  size = 0;

  constructor(
    private readonly hasher: AssetHasher,
    private readonly target: PartTarget | undefined,
    private readonly maxBytes: number,
  ) {
    hasher.reset();
  }

  async write(chunk: Buffer): Promise<void> {
    const text = this.carry + chunk.toString("latin1");
    if (this.padded && text.length > 0) throw new PartContentError("content continues after base64 padding");
    const usable = text.length - (text.length % 4);
    this.carry = text.slice(usable);
    if (NOT_BASE64.test(this.carry)) throw new PartContentError("content is not base64");
    if (usable === 0) return;
    const quads = text.slice(0, usable);
    const bytes = Buffer.from(quads, "base64");
    const canonical = bytes.toString("base64");
    // Node's decoder skips what is not base64, so text that encodes back to itself is valid, and
    // the check costs one comparison; only other text is looked at closely (a regular expression
    // over every part was a tenth of the upload service's time).
    if (canonical !== quads) checkBase64(quads);
    if (quads.endsWith("=")) this.padded = true;
    this.size += bytes.length;
    if (this.size > this.maxBytes) throw new PartContentError(`content exceeds ${this.maxBytes} bytes`);
    this.hasher.updateBase64(canonical);
    if (this.target) await this.target.append(bytes);
  }

  async end(): Promise<void> {
    if (this.carry.length > 0) throw new PartContentError("base64 content is truncated");
  }

  /** The asset hash of what was received, once `end` has resolved. */
  hash(extension: string): string {
    return this.hasher.finish(extension);
  }
}
