import type {
  PackDraft,
  PartRun,
  PartState,
  ReceivedBucket,
  UploadStorage,
} from "../../src/upload/upload-storage.js";

/** A pack in memory: its bytes, once committed its id, once discarded nothing. */
export class MemoryPack implements PackDraft {
  readonly chunks: Buffer[] = [];
  length = 0;
  discarded = false;

  async append(bytes: Uint8Array): Promise<void> {
    this.chunks.push(Buffer.from(bytes));
    this.length += bytes.length;
  }

  async discard(): Promise<void> {
    this.discarded = true;
  }
}

interface Session {
  expiresAt: number;
  /** The manifest: path to hash and declared size. */
  assets: Map<string, { hash: string; size: number }>;
  /** Hashes the session has (uploaded, or held for it). */
  has: Set<string>;
  mediaTypes: Map<string, string>;
}

/**
 * The upload service's storage in maps, for its unit tests: no database, no disk. Sessions are
 * opened with `openSession`; a committed pack's blobs are kept by hash in `blobs`; `freeBytes`
 * stands for the free space (the guard keeps `minFreeBytes`).
 */
export class MemoryUploadStorage implements UploadStorage {
  readonly sessions = new Map<string, Session>();
  readonly blobs = new Map<string, Buffer>();
  readonly packs: MemoryPack[] = [];
  freeBytes = Number.MAX_SAFE_INTEGER;
  minFreeBytes = 0;

  /** Opens a session whose manifest names `assets` (path, hash, size). */
  openSession(id: string, expiresAt: number, assets: { path: string; hash: string; size: number }[]): void {
    const manifest = new Map(assets.map(({ path, hash, size }) => [path, { hash, size }]));
    this.sessions.set(id, { expiresAt, assets: manifest, has: new Set(), mediaTypes: new Map() });
  }

  async session(sessionId: string): Promise<{ id: string; expiresAt: number } | undefined> {
    const session = this.sessions.get(sessionId);
    return session && { id: sessionId, expiresAt: session.expiresAt };
  }

  /** Runs read so far, as `partRun` was asked: a test counts them. */
  readonly runs: { from: string; limit: number; missingOnly: boolean }[] = [];

  async partRun(sessionId: string, from: string, limit: number, missingOnly: boolean): Promise<PartRun> {
    this.runs.push({ from, limit, missingOnly });
    const session = this.sessions.get(sessionId);
    const named = new Map<string, { path: string; size: number }>();
    for (const [path, { hash, size }] of session?.assets ?? []) {
      const known = named.get(hash);
      if (hash < from || (known && known.size >= size)) continue;
      named.set(hash, { path, size });
    }
    const hashes = [...named.keys()]
      .filter((hash) => !missingOnly || !session!.has.has(hash))
      .sort()
      .slice(0, limit);
    const parts = new Map<string, PartState>();
    for (const hash of hashes) {
      const inSession = session!.has.has(hash);
      parts.set(hash, { asset: named.get(hash)!, inSession, held: this.blobs.has(hash) });
    }
    return { parts, through: hashes.length === limit ? hashes[hashes.length - 1] : undefined };
  }

  async missingCount(sessionId: string): Promise<number> {
    const session = this.sessions.get(sessionId)!;
    const named = new Set([...session.assets.values()].map((entry) => entry.hash));
    return [...named].filter((hash) => !session.has.has(hash)).length;
  }

  startPack(): MemoryPack {
    const pack = new MemoryPack();
    this.packs.push(pack);
    return pack;
  }

  async commitPack(pack: PackDraft): Promise<{ id: string; size: number }> {
    return { id: String(this.packs.indexOf(pack as MemoryPack)), size: pack.length };
  }

  async record(sessionId: string, bucket: ReceivedBucket): Promise<void> {
    const session = this.sessions.get(sessionId)!;
    if (bucket.pack) {
      const bytes = Buffer.concat(this.packs[Number(bucket.pack.id)]!.chunks);
      for (const blob of bucket.pack.blobs) {
        this.blobs.set(blob.hash, bytes.subarray(blob.offset, blob.offset + blob.size));
        session.has.add(blob.hash);
      }
    }
    for (const hash of bucket.alreadyHeld ?? []) session.has.add(hash);
    for (const { hash, mediaType } of bucket.mediaTypes) session.mediaTypes.set(hash, mediaType);
  }

  async lacksRoomFor(incoming: number): Promise<boolean> {
    return this.minFreeBytes > 0 && this.freeBytes - incoming < this.minFreeBytes;
  }
}
