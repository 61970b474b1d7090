import { createRequire } from "node:module";

/** One streaming BLAKE3 state, reusable: `init` starts a new hash on it (and must follow a digest). */
export interface Blake3 {
  init(): void;
  update(data: Uint8Array | string): void;
  /** The 32-byte digest as 64 hex characters. */
  digestHex(): string;
}

/** Which implementation hashes: native code from npm's prebuilt binaries, or WebAssembly. */
export type Blake3Backend = "native" | "wasm";

/** The shape of `@napi-rs/blake-hash`'s hasher that we use. */
interface NativeHasher {
  reset(): void;
  update(input: Uint8Array | string): unknown;
  digest(format: "hex"): string;
}
type NativeModule = { Blake3Hasher: new () => NativeHasher };

let native: NativeModule | null | undefined;

/**
 * The native module, or null where it cannot load: its prebuilt binary is an optional dependency
 * chosen by platform, so another platform, a bundle without it, or `DEPLOY_BLAKE3=wasm` falls
 * back to WebAssembly. Loaded through `createRequire` so a bundler leaves it out.
 */
function loadNative(): NativeModule | null {
  if (native !== undefined) return native;
  if (process.env.DEPLOY_BLAKE3 === "wasm") return (native = null);
  try {
    const load = createRequire(import.meta.url);
    native = load("@napi-rs/blake-hash") as NativeModule;
  } catch {
    native = null;
  }
  return native;
}

/** The backend `createBlake3` uses by default on this machine. */
export function defaultBlake3Backend(): Blake3Backend {
  return loadNative() ? "native" : "wasm";
}

/**
 * A new BLAKE3 state. Native code (Rust's `blake3` with SIMD, from `@napi-rs/blake-hash`) hashes
 * 4.4× faster than hash-wasm on large inputs here and 1.7× on 2 KB ones (BENCHMARKS.md); hash-wasm
 * gives the same digests wherever the native binary is missing.
 */
export async function createBlake3(backend: Blake3Backend = defaultBlake3Backend()): Promise<Blake3> {
  const module = backend === "native" ? loadNative() : null;
  if (backend === "native" && !module) throw new Error("the native BLAKE3 module is not installed");
  if (module) {
    const hasher = new module.Blake3Hasher();
    return {
      init: () => hasher.reset(),
      update: (data) => void hasher.update(data),
      digestHex: () => hasher.digest("hex"),
    };
  }
  // Imported only here: where the native module loads, no process or hashing thread pays for it.
  const { createBLAKE3 } = await import("hash-wasm");
  const hasher = await createBLAKE3();
  hasher.init();
  return {
    init: () => void hasher.init(),
    update: (data) => void hasher.update(data),
    digestHex: () => hasher.digest("hex"),
  };
}
