import { MIB } from "../core/formats.js";

/** A blob held in memory: its bytes and, for compressible types, the variants made so far. */
export interface CachedBlob {
  body: Buffer;
  /** Made on the first request that asks for it (`VariantMaker`); undefined until then. */
  br: Buffer | undefined;
  gzip: Buffer | undefined;
}

export interface BlobCacheOptions {
  /** Total bytes held, variants included. */
  maxBytes?: number;
  /** Blobs larger than this are streamed from disk instead. */
  maxEntryBytes?: number;
}

const DEFAULT_CACHE_BYTES = 64 * MIB;
const DEFAULT_CACHE_ENTRY_BYTES = 1 * MIB;

// Map and object bookkeeping per entry, so that many tiny blobs still count for something.
const ENTRY_OVERHEAD = 256;

/**
 * The largest blob a cache of `maxBytes` (EDGE_CACHE_BYTES) holds in memory, with the variants
 * made of it; a larger one is streamed from its pack and its variants are kept as files (0: every
 * blob). The quotas count those files.
 */
export function largestCachedBlob(maxBytes = DEFAULT_CACHE_BYTES): number {
  return maxBytes > 0 ? Math.min(DEFAULT_CACHE_ENTRY_BYTES, maxBytes) : 0;
}

/**
 * A cache of blob bodies by hash, bounded by bytes, evicting about the least recently used (the
 * "second chance" clock: a hit only sets a flag, so the hot path never reorders the map). Blobs are
 * immutable, so an entry never goes stale and nothing needs invalidating; eviction only bounds
 * memory. Concurrent misses on one hash share a single load.
 */
export class BlobCache {
  private readonly maxBytes: number;
  private readonly maxEntryBytes: number;
  // A Map iterates in insertion order: the oldest first, or the oldest since its second chance.
  private readonly entries = new Map<string, { blob: CachedBlob; weight: number; used: boolean }>();
  private readonly loading = new Map<string, Promise<CachedBlob>>();
  private totalBytes = 0;
  /** Answers sent from memory, and answers that had to read their blob (counted by the edge). */
  readonly counts = { hits: 0, misses: 0 };

  constructor(options: BlobCacheOptions = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_CACHE_BYTES;
    this.maxEntryBytes = Math.min(options.maxEntryBytes ?? DEFAULT_CACHE_ENTRY_BYTES, this.maxBytes);
  }

  /** True when a blob of `size` bytes is served from memory rather than streamed. */
  admits(size: number): boolean {
    return this.maxBytes > 0 && size <= this.maxEntryBytes;
  }

  /** Bytes currently held. */
  get size(): number {
    return this.totalBytes;
  }

  /** The cached blob, marked as used since the last eviction pass, or undefined. */
  get(hash: string): CachedBlob | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    entry.used = true;
    return entry.blob;
  }

  /** Loads a missing blob once, however many requests ask for it meanwhile, and keeps it. */
  load(hash: string, load: () => Promise<CachedBlob>): Promise<CachedBlob> {
    const cached = this.get(hash);
    if (cached) return Promise.resolve(cached);
    let pending = this.loading.get(hash);
    if (!pending) {
      pending = load().then(
        (blob) => {
          this.loading.delete(hash);
          this.insert(hash, blob);
          return blob;
        },
        (error: unknown) => {
          this.loading.delete(hash);
          throw error;
        },
      );
      this.loading.set(hash, pending);
    }
    return pending;
  }

  /**
   * Counts `bytes` more against the bound for a blob that gained a variant, evicting others as
   * needed; a blob that no longer fits alone leaves. Nothing when `blob` is not the one held.
   */
  grow(hash: string, blob: CachedBlob, bytes: number): void {
    const entry = this.entries.get(hash);
    if (!entry || entry.blob !== blob) return;
    entry.weight += bytes;
    this.totalBytes += bytes;
    if (entry.weight > this.maxBytes) {
      this.entries.delete(hash);
      this.totalBytes -= entry.weight;
      return;
    }
    this.evictFor(hash);
  }

  private insert(hash: string, blob: CachedBlob): void {
    const weight = blob.body.length + (blob.br?.length ?? 0) + (blob.gzip?.length ?? 0) + ENTRY_OVERHEAD;
    if (weight > this.maxBytes || this.entries.has(hash)) return;
    this.entries.set(hash, { blob, weight, used: false });
    this.totalBytes += weight;
    this.evictFor(hash);
  }

  /** Evicts until the bound holds again, never `kept` (which fits alone: its weight is within it). */
  private evictFor(kept: string): void {
    // Ends: each step clears a flag or evicts, and a moved entry comes round again unflagged.
    for (const [oldest, entry] of this.entries) {
      if (this.totalBytes <= this.maxBytes) break;
      if (oldest === kept) continue;
      this.entries.delete(oldest);
      if (entry.used) {
        entry.used = false;
        this.entries.set(oldest, entry);
      } else {
        this.totalBytes -= entry.weight;
      }
    }
  }
}
