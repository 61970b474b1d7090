import { PartContentError } from "./part-content-error.js";

const NOT_BASE64 = /[^A-Za-z0-9+/=]/;
const EMPTY = Buffer.alloc(0);
const EQUALS = 0x3d;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Whole quads of a part's text, decoded: `canonical` when the text is the canonical base64 of `bytes`. */
export interface DecodedQuads {
  quads: Buffer;
  bytes: Buffer;
  canonical: boolean;
}

/**
 * A part's base64 text as it comes in chunks: cut into whole quads, checked, decoded and counted
 * against `maxBytes`. What is done with the bytes and how they are hashed is the caller's
 * (`Base64PartSink` on this thread, `HashLane` on a hashing thread); what is taken or refused is
 * decided here, the same for both.
 */
export class Base64PartText {
  private readonly quads = new Base64Quads();
  private decoded = 0;

  constructor(private readonly maxBytes: number) {}

  /** Decoded bytes so far. */
  get size(): number {
    return this.decoded;
  }

  /** The quads `chunk` completes, decoded, or undefined when it completes none. */
  decode(chunk: Buffer): DecodedQuads | undefined {
    const quads = this.quads.take(chunk);
    if (quads === undefined) return undefined;
    const decoded = decodeQuads(quads, this.decoded, this.maxBytes);
    this.decoded += decoded.bytes.length;
    return decoded;
  }

  /** Refuses text that ended short of a whole quad. */
  end(): void {
    this.quads.end();
  }
}

/** Cuts a part's base64 text, as it comes in chunks, into whole quads for `decodeQuads`. */
class Base64Quads {
  /** The last 0 to 3 bytes of text, short of a whole quad. */
  private carry: Buffer = EMPTY;
  private padded = false;

  /** The whole quads `chunk` completes (a view when it can be), or undefined when none. */
  take(chunk: Buffer): Buffer | undefined {
    if (this.padded && chunk.length > 0) throw new PartContentError("content continues after base64 padding");
    const text = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const usable = text.length - (text.length % 4);
    // Copied: a view would keep the whole chunk alive.
    this.carry = Buffer.from(text.subarray(usable));
    if (NOT_BASE64.test(this.carry.toString("latin1"))) throw new PartContentError("content is not base64");
    if (usable === 0) return undefined;
    if (text[usable - 1] === EQUALS) this.padded = true;
    return text.subarray(0, usable);
  }

  /** Refuses text that ended short of a whole quad. */
  end(): void {
    if (this.carry.length > 0) throw new PartContentError("base64 content is truncated");
  }
}

/**
 * Decodes whole quads, refusing them once the part (`sizeBefore` bytes so far) would exceed
 * `maxBytes`, or when they are not base64 for a reason other than their padding bits. `canonical`
 * says whether the text is the canonical base64 of `bytes`: then it can be hashed as it came; else
 * the hash takes the canonical base64 of `bytes`, so that non-canonical padding cannot pass other
 * content off under a hash.
 */
function decodeQuads(quads: Buffer, sizeBefore: number, maxBytes: number): DecodedQuads {
  const bytes = Buffer.from(quads.toString("latin1"), "base64");
  if (sizeBefore + bytes.length > maxBytes) throw new PartContentError(`content exceeds ${maxBytes} bytes`);
  // Anything not canonical is rare: only a broken or hostile client sends it.
  const canonical = isCanonical(quads, bytes.length);
  if (!canonical) checkBase64(quads.toString("latin1"));
  return { quads, bytes, canonical };
}

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
