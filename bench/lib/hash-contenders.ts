import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./paths.js";

/**
 * One BLAKE3 library, driven as the contract's asset hash is computed: the base64 text of a file in
 * one or more updates, then the extension, then the first 32 hex characters of the digest.
 */
export interface AssetStreamHasher {
  /** Starts a new file. */
  start(): void;
  /** A piece of the text: bytes for the libraries, bytes or a string for ours (its callers pass both). */
  update(text: Uint8Array | string): void;
  /** Appends the extension and returns the 32-hex asset hash. */
  finish(extension: string): string;
}

/** The npm libraries measured: each is given the text as bytes, its fastest input. */
export const HASH_LIBRARIES = ["hash-wasm", "blake3-wasm", "blake3-jit", "@napi-rs/blake-hash"] as const;
/**
 * What the bench measures: the libraries, and our `AssetHasher` (src/core/asset-hash.ts) fed as
 * its callers feed it: bytes (the client's files up to 1 MiB) or strings (the upload service's
 * parts, the client's larger files).
 */
export const HASH_CONTENDERS = [...HASH_LIBRARIES, "ours", "ours-strings"] as const;
export type HashContenderName = (typeof HASH_CONTENDERS)[number];

/** Whether a contender is given its text as strings rather than bytes. */
export function takesStrings(name: HashContenderName): boolean {
  return name === "ours-strings";
}

/** How each contender is named in the tables. */
export const CONTENDER_LABELS: Record<HashContenderName | "b3sum", string> = {
  "hash-wasm": "hash-wasm",
  "blake3-wasm": "blake3-wasm",
  "blake3-jit": "blake3-jit",
  "@napi-rs/blake-hash": "@napi-rs/blake-hash (native, prebuilt from npm)",
  ours: "ours (`AssetHasher`), text as bytes: the client's files up to 1 MiB",
  "ours-strings": "ours (`AssetHasher`), text as strings: the upload service, the client's larger files",
  b3sum: "`b3sum --num-threads 1` (native, reference)",
};

const HEX_CHARS = 32;

/**
 * Loads a contender and makes its hasher. The import happens here, not at the top of the file, so
 * the caller can time what a cold process pays before its first hash.
 */
export async function loadContender(name: HashContenderName): Promise<AssetStreamHasher> {
  switch (name) {
    case "hash-wasm": {
      const { createBLAKE3 } = await import("hash-wasm");
      const hasher = await createBLAKE3();
      return {
        start: () => hasher.init(),
        update: (text) => hasher.update(bytesOf(text)),
        finish: (extension) => hasher.update(extension).digest("hex").slice(0, HEX_CHARS),
      };
    }
    case "blake3-wasm": {
      const { createHash } = await import("blake3-wasm");
      // It has no reset: a hasher per file (a small allocation in its one WebAssembly instance,
      // freed by digest).
      let hasher = createHash();
      return {
        start: () => {
          hasher.dispose();
          hasher = createHash();
        },
        update: (text) => hasher.update(bytesOf(text)),
        finish: (extension) => hasher.update(extension, "latin1").digest("hex").slice(0, HEX_CHARS),
      };
    }
    case "blake3-jit": {
      const { createHasher } = await import("blake3-jit");
      const hasher = createHasher();
      return {
        start: () => hasher.reset(),
        update: (text) => hasher.update(bytesOf(text)),
        finish: (extension) =>
          Buffer.from(hasher.update(Buffer.from(extension, "latin1")).finalize(HEX_CHARS / 2)).toString(
            "hex",
          ),
      };
    }
    case "@napi-rs/blake-hash": {
      const { Blake3Hasher } = await import("@napi-rs/blake-hash");
      const hasher = new Blake3Hasher();
      return {
        start: () => hasher.reset(),
        update: (text) => hasher.update(bytesOf(text)),
        finish: (extension) => hasher.update(extension).digest("hex").slice(0, HEX_CHARS),
      };
    }
    case "ours":
    case "ours-strings": {
      // Built by `npm run bench` before the bench runs; imported by path so the bench compiles
      // without src/.
      const url = pathToFileURL(join(REPO_ROOT, "dist", "core", "asset-hash.js")).href;
      const { AssetHasher } = (await import(url)) as {
        AssetHasher: {
          create(): Promise<{
            reset(): unknown;
            updateBase64(text: Uint8Array | string): void;
            finish(extension: string): string;
          }>;
        };
      };
      const hasher = await AssetHasher.create();
      return {
        start: () => hasher.reset(),
        update: (text) => hasher.updateBase64(text),
        finish: (extension) => hasher.finish(extension),
      };
    }
  }
}

/** The libraries are only ever given bytes (the runner prepares strings for ours alone). */
function bytesOf(text: Uint8Array | string): Uint8Array {
  if (typeof text === "string") throw new Error("hash bench: a library was given a string");
  return text;
}
