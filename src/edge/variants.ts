import { availableParallelism } from "node:os";
import { pipeline } from "node:stream/promises";
import type { BlobCache, CachedBlob } from "./blob-cache.js";
import { type Coding, compressBody, compressorFor } from "./compression.js";
import type { EdgeBlob, EdgeStorage } from "./edge-storage.js";

/** Half the cores (at least one): the rest, and most of libuv's pool, stay for serving and uploads. */
export const DEFAULT_MAX_COMPRESSIONS = Math.max(1, Math.floor(availableParallelism() / 2));

/**
 * Makes the compressed variants of blobs, each once: a small blob's in memory (kept with it in the
 * blob cache, within its bound), a large blob's in the storage's place for variants. At most
 * `maxAtOnce` compressions run at a time; a request that would start one more is told to send the
 * blob as it is instead, and requests for a variant being made wait for it.
 */
export class VariantMaker {
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly cache: BlobCache,
    private readonly storage: EdgeStorage,
    private readonly maxAtOnce = DEFAULT_MAX_COMPRESSIONS,
  ) {}

  /**
   * The variant of a blob held in memory, once made; undefined when it must be sent as it is
   * (as many compressions are running as may).
   */
  inMemory(hash: string, blob: CachedBlob, coding: Coding): Promise<Buffer> | undefined {
    return this.run(`${hash}.${coding}`, async () => {
      const variant = await compressBody(blob.body, coding);
      blob[coding] = variant;
      this.cache.grow(hash, blob, variant.length);
      return variant;
    });
  }

  /**
   * A large blob's stored variant, opened; made now from the blob (checked to be `size` bytes) if
   * it is missing. Undefined when it must be sent as it is.
   */
  async onDisk(hash: string, coding: Coding, size: number): Promise<EdgeBlob | undefined> {
    const stored = await this.storage.openVariant(hash, coding);
    if (stored) return stored;
    const making = this.run(`${hash}.${coding}`, async () => {
      const blob = await this.storage.openBlob(hash);
      try {
        if (blob.size !== size)
          throw new Error(`blob ${hash} holds ${blob.size} bytes, its row says ${size}`);
        await this.storage.storeVariant(hash, coding, (sink) =>
          pipeline(blob.stream(0, size - 1), compressorFor(coding, size), sink),
        );
      } finally {
        blob.close();
      }
    });
    if (!making) return undefined;
    await making;
    const made = await this.storage.openVariant(hash, coding);
    if (!made) throw new Error(`the ${coding} variant of blob ${hash} is missing once made`);
    return made;
  }

  /** Runs `make` under `key` unless it is running already (then its promise) or the cap is reached. */
  private run<T>(key: string, make: () => Promise<T>): Promise<T> | undefined {
    const running = this.running.get(key);
    if (running) return running as Promise<T>;
    if (this.running.size >= this.maxAtOnce) return undefined;
    const made = make().finally(() => this.running.delete(key));
    this.running.set(key, made);
    return made;
  }
}
