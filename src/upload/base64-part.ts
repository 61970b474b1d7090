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
  /** The last 0 to 3 bytes of text, short of a whole quad. */
  private carry: Buffer = EMPTY;
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
    if (this.padded && chunk.length > 0) throw new PartContentError("content continues after base64 padding");
    const text = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const usable = text.length - (text.length % 4);
    // Copied: a view would keep the whole chunk alive.
    this.carry = Buffer.from(text.subarray(usable));
    if (NOT_BASE64.test(this.carry.toString("latin1"))) throw new PartContentError("content is not base64");
    if (usable === 0) return;
    const quads = text.subarray(0, usable);
    const bytes = Buffer.from(quads.toString("latin1"), "base64");
    if (quads[usable - 1] === EQUALS) this.padded = true;
    this.size += bytes.length;
    if (this.size > this.maxBytes) throw new PartContentError(`content exceeds ${this.maxBytes} bytes`);
    // Canonical text is hashed as it came, as bytes: no string is made of it again. Anything else
    // (rare: only a broken or hostile client sends it) is refused or hashed as its canonical form.
    if (isCanonical(quads, bytes.length)) {
      this.hasher.updateBase64(quads);
    } else {
      const canonical = bytes.toString("base64");
      checkBase64(quads.toString("latin1"));
      this.hasher.updateBase64(canonical);
    }
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

const EMPTY = Buffer.alloc(0);
const EQUALS = 0x3d;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * True when `quads` (whole quads of text) is the canonical base64 of what Node decoded from it,
 * `decoded` bytes, without encoding them again. Node's decoder skips characters outside the
 * alphabet and stops at `=`, so any such character, or padding not at the end, leaves fewer bytes
 * than the text's length promises; it also takes the URL-safe `-` and `_`, looked for apart; and
 * the bits that padding leaves over must be zero.
 */
function isCanonical(quads: Buffer, decoded: number): boolean {
  const length = quads.length;
  const padding = quads[length - 1] === EQUALS ? (quads[length - 2] === EQUALS ? 2 : 1) : 0;
  if (decoded !== (length / 4) * 3 - padding) return false;
  if (quads.includes(0x2d) || quads.includes(0x5f)) return false;
  if (padding === 0) return true;
  const last = ALPHABET.indexOf(String.fromCharCode(quads[length - 1 - padding]!));
  return (last & (padding === 2 ? 0x0f : 0x03)) === 0;
}
