import type { Readable } from "node:stream";
import { sql } from "kysely";
import { fileRange } from "./file-range.js";
import { PackDamagedError, type PackStorage } from "./pack-storage.js";
import { type Executor, firstOf, type PlatformDatabase } from "../state/platform-db.js";
import type { ContentDirectory } from "./content-directory.js";
import { openSized } from "../../../shared/sized-file.js";

/** A blob that cannot be served: no row, marked damaged, or its bytes short or missing. */
export class BlobUnavailableError extends Error {}

/** A blob opened for reading: ranges of it as streams, until `close`. */
export interface OpenedBlob {
  readonly size: number;
  /** Bytes `start` to `end`, inclusive, of the blob. */
  stream(start: number, end: number): Readable;
  /** All of it, in memory. */
  readAll(): Promise<Buffer>;
  close(): void;
}

interface Location {
  size: number;
  pack: string | null;
  pack_offset: number | null;
  damaged: number;
  /** The size its pack's row records; null when no row does. */
  pack_size: number | null;
}

/**
 * Reads blobs wherever their row says they are: a byte range of a pack, or a file of their own
 * (stored before packs). A blob whose bytes are not all there is never served: reading it throws
 * BlobUnavailableError and marks its row damaged, so the next prepare asks for it again.
 */
export class BlobReader {
  private readonly db: Executor;

  constructor(
    database: PlatformDatabase,
    private readonly packs: ContentDirectory,
    private readonly storage: PackStorage,
  ) {
    this.db = database.db;
  }

  /** The whole blob, in memory. */
  async read(hash: string): Promise<Buffer> {
    const blob = await this.open(hash);
    try {
      return await blob.readAll();
    } finally {
      blob.close();
    }
  }

  /**
   * Opens a blob, checking before any byte is sent that all of it is there (so a damaged blob
   * still gets a clean error response, not a cut one).
   */
  async open(hash: string): Promise<OpenedBlob> {
    // A compaction may move the blob and delete its old pack between the lookup and the open:
    // then the row names the new pack, so look again once.
    for (let attempt = 0; ; attempt++) {
      const location = await this.locate(hash);
      try {
        return location.pack === null
          ? await this.openLoose(hash, location)
          : await this.openInPack(hash, location, location.pack);
      } catch (error) {
        if (isMissingFile(error) && attempt === 0 && (await this.locate(hash)).pack !== location.pack)
          continue;
        if (error instanceof BlobUnavailableError) throw error;
        if (isMissingFile(error)) throw await this.damaged(hash, "its file is missing");
        throw error;
      }
    }
  }

  private async locate(hash: string): Promise<Location> {
    // The pack's recorded size with the blob's row: one lookup per read, not two.
    const row = await firstOf(
      this.db,
      sql<Location>`SELECT b.size, b.pack, b.pack_offset, b.damaged, p.size AS pack_size
        FROM blobs b LEFT JOIN packs p ON p.id = b.pack WHERE b.hash = ${hash}`,
    );
    if (!row) throw new BlobUnavailableError(`blob ${hash} is not held`);
    if (Number(row.damaged))
      throw new BlobUnavailableError(`blob ${hash} is damaged and awaits a new upload`);
    // PostgreSQL answers BIGINT columns as strings.
    return {
      size: Number(row.size),
      pack: row.pack,
      pack_offset: row.pack_offset === null ? null : Number(row.pack_offset),
      damaged: 0,
      pack_size: row.pack_size === null ? null : Number(row.pack_size),
    };
  }

  private async openInPack(hash: string, location: Location, pack: string): Promise<OpenedBlob> {
    const start = location.pack_offset ?? 0;
    try {
      const range = await this.storage.openRange(pack, start, location.size, location.pack_size ?? undefined);
      return { size: location.size, ...range };
    } catch (error) {
      if (error instanceof PackDamagedError) throw await this.damaged(hash, error.message);
      throw error;
    }
  }

  private async openLoose(hash: string, location: Location): Promise<OpenedBlob> {
    const { file, size } = await openSized(this.packs.loosePath(hash));
    if (size !== location.size) {
      await file.close();
      throw await this.damaged(hash, `its file holds ${size} bytes, its row says ${location.size}`);
    }
    return { size, ...fileRange(file, 0, size, () => void file.close().catch(() => undefined)) };
  }

  private async damaged(hash: string, why: string): Promise<BlobUnavailableError> {
    await this.db.updateTable("blobs").set({ damaged: 1 }).where("hash", "=", hash).execute();
    return new BlobUnavailableError(`blob ${hash} is damaged: ${why}; marked so that it is uploaded again`);
  }
}

function isMissingFile(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === "ENOENT";
}
