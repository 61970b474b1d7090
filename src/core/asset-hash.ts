import { posix } from "node:path";
import { createBlake3, type Blake3, type Blake3Backend } from "./blake3.js";

/**
 * Cloudflare's Workers-assets hash: the first 32 hex characters of
 * BLAKE3(base64(bytes) + extension without the dot). Using it keeps the client compatible with
 * Cloudflare's own upload service.
 */
const ASSET_HASH_LENGTH = 32;

/** A string goes to the hash in pieces of at most this many UTF-16 units... */
const STRING_PIECE_UNITS = 64 * 1024;
/** ...each encoded into a reused buffer; a unit takes at most 3 bytes of UTF-8 (a pair, 4 for 2). */
const STRING_PIECE_BYTES = 3 * STRING_PIECE_UNITS;

/** The extension that takes part in the hash: `index.html` gives `html`, `README` gives ``. */
export function hashExtension(path: string): string {
  return posix.extname(path).slice(1);
}

/** Streaming hasher over base64 text; feed the canonical base64 of the bytes, then `finish`. */
export class AssetHasher {
  /** Where strings are encoded before hashing, made on the first string. */
  private scratch: Buffer | undefined;

  private constructor(private readonly hasher: Blake3) {}

  /** A fresh hasher, each with its own BLAKE3 state (native where installed, else WebAssembly). */
  static async create(backend?: Blake3Backend): Promise<AssetHasher> {
    return new AssetHasher(await createBlake3(backend));
  }

  /** Feeds base64 text (ASCII) to the hash; a string counts as its UTF-8 bytes. */
  updateBase64(chunk: string | Uint8Array): void {
    if (typeof chunk === "string") this.updateString(chunk);
    else this.hasher.update(chunk);
  }

  /** Appends the extension and returns the 32-hex asset hash. */
  finish(extension: string): string {
    this.hasher.update(extension);
    return this.hasher.digestHex().slice(0, ASSET_HASH_LENGTH);
  }

  /**
   * Both backends would encode each string into a new buffer (and the garbage collector would
   * follow): the upload service and the client's streamed files hash 20-40% faster through a
   * reused one.
   */
  private updateString(text: string): void {
    const scratch = (this.scratch ??= Buffer.allocUnsafe(STRING_PIECE_BYTES));
    for (let start = 0; start < text.length;) {
      let end = Math.min(start + STRING_PIECE_UNITS, text.length);
      // Never part a surrogate pair: each half alone would encode as U+FFFD.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      const piece = start === 0 && end === text.length ? text : text.slice(start, end);
      this.hasher.update(scratch.subarray(0, scratch.write(piece, 0, "utf8")));
      start = end;
    }
  }

  /** Starts a new hash on the same instance: creating a WebAssembly instance per file is costly. */
  reset(): this {
    this.hasher.init();
    return this;
  }
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** Bytes encoded at a time by `hashAsset`: a multiple of 3, so the pieces' base64 joins without padding. */
const HASH_ASSET_PIECE_BYTES = 3 * 16 * 1024;

/** Hashes a whole buffer with the asset scheme, its base64 made a piece at a time (memory stays bounded). */
export async function hashAsset(bytes: Uint8Array, path: string): Promise<string> {
  const hasher = await AssetHasher.create();
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let start = 0; start < buffer.length; start += HASH_ASSET_PIECE_BYTES) {
    hasher.updateBase64(buffer.toString("base64", start, start + HASH_ASSET_PIECE_BYTES));
  }
  return hasher.finish(hashExtension(path));
}
