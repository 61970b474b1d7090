import { posix } from "node:path";
import { createBLAKE3, type IHasher } from "hash-wasm";

/**
 * Cloudflare's Workers-assets hash: the first 32 hex characters of
 * BLAKE3(base64(bytes) + extension without the dot). Using it keeps the client compatible with
 * Cloudflare's own upload service.
 */
const ASSET_HASH_LENGTH = 32;

/** The extension that takes part in the hash: `index.html` gives `html`, `README` gives ``. */
export function hashExtension(path: string): string {
  return posix.extname(path).slice(1);
}

/** Streaming hasher over base64 text; feed the canonical base64 of the bytes, then `finish`. */
export class AssetHasher {
  private constructor(private readonly hasher: IHasher) {}

  /** A fresh hasher; each holds its own WebAssembly instance. */
  static async create(): Promise<AssetHasher> {
    const hasher = await createBLAKE3();
    hasher.init();
    return new AssetHasher(hasher);
  }

  /** Feeds base64 text (ASCII) to the hash. */
  updateBase64(chunk: string | Uint8Array): void {
    this.hasher.update(chunk);
  }

  /** Appends the extension and returns the 32-hex asset hash. */
  finish(extension: string): string {
    this.hasher.update(extension);
    return this.hasher.digest("hex").slice(0, ASSET_HASH_LENGTH);
  }

  /** Starts a new hash on the same instance: creating a WebAssembly instance per file is costly. */
  reset(): this {
    this.hasher.init();
    return this;
  }
}

/** Hashes a whole buffer with the asset scheme. */
export async function hashAsset(bytes: Uint8Array, path: string): Promise<string> {
  const hasher = await AssetHasher.create();
  hasher.updateBase64(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"));
  return hasher.finish(hashExtension(path));
}
