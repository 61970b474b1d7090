import { Base64Scratch } from "./base64-scratch.js";
import { PartContentError } from "./part-content-error.js";

const NOT_BASE64 = /[^A-Za-z0-9+/=]/;
const EQUALS = 0x3d;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** 1 for each byte of the alphabet and `=`: a quad's unfinished tail is checked without a string. */
const BASE64_BYTES = new Uint8Array(256);
for (const char of ALPHABET + "=") BASE64_BYTES[char.charCodeAt(0)] = 1;

/**
 * Whole quads of a part's text, decoded: `canonical` when the text is the canonical base64 of
 * `bytes`. Both are views of the chunk or of the request's scratch: good until the next `decode`.
 */
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

  constructor(
    private readonly maxBytes: number,
    private readonly scratch = new Base64Scratch(),
  ) {}

  /** Decoded bytes so far. */
  get size(): number {
    return this.decoded;
  }

  /** The quads `chunk` completes, decoded, or undefined when it completes none. */
  decode(chunk: Buffer): DecodedQuads | undefined {
    const quads = this.quads.take(chunk, this.scratch);
    if (quads === undefined) return undefined;
    const decoded = decodeQuads(quads, this.decoded, this.maxBytes, this.scratch);
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
  /** How many bytes of text, 0 to 3, short of a whole quad, wait in the scratch's `carry`. */
  private carried = 0;
  private padded = false;

  /**
   * The whole quads `chunk` completes, or undefined when none: a view of the chunk, or of the
   * scratch when a quad was left unfinished before it (joined there, not in a new buffer).
   */
  take(chunk: Buffer, scratch: Base64Scratch): Buffer | undefined {
    if (this.padded && chunk.length > 0) throw new PartContentError("content continues after base64 padding");
    const text = this.carried === 0 ? chunk : scratch.join(this.carried, chunk);
    const usable = text.length - (text.length % 4);
    this.carried = text.length - usable;
    for (let i = 0; i < this.carried; i++) {
      const byte = text[usable + i]!;
      if (BASE64_BYTES[byte] === 0) throw new PartContentError("content is not base64");
      // Copied: a view would keep the whole chunk alive, or see the scratch change.
      scratch.carry[i] = byte;
    }
    if (usable === 0) return undefined;
    if (text[usable - 1] === EQUALS) this.padded = true;
    return text.subarray(0, usable);
  }

  /** Refuses text that ended short of a whole quad. */
  end(): void {
    if (this.carried > 0) throw new PartContentError("base64 content is truncated");
  }
}

/**
 * Decodes whole quads, refusing them once the part (`sizeBefore` bytes so far) would exceed
 * `maxBytes`, or when they are not base64 for a reason other than their padding bits. `canonical`
 * says whether the text is the canonical base64 of `bytes`: then it can be hashed as it came; else
 * the hash takes the canonical base64 of `bytes`, so that non-canonical padding cannot pass other
 * content off under a hash.
 */
function decodeQuads(
  quads: Buffer,
  sizeBefore: number,
  maxBytes: number,
  scratch: Base64Scratch,
): DecodedQuads {
  const length = quads.length;
  const padding = quads[length - 1] === EQUALS ? (quads[length - 2] === EQUALS ? 2 : 1) : 0;
  // At most what `Buffer.from(text, "base64")` would make room for: the same decoder, the same bytes.
  const most = (length / 4) * 3 - padding;
  const room = scratch.room(most);
  const bytes = room.subarray(0, room.write(quads.toString("latin1"), 0, most, "base64"));
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
