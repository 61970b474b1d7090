import { randomBytes } from "node:crypto";
import { createWriteStream, rmSync } from "node:fs";
import { open, stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  S3Client,
} from "@aws-sdk/client-s3";
import type { DiskRangeCache, KeptRange } from "../disk-range-cache.js";
import { closingAfterStreams, fileRange } from "../file-range.js";
import type { S3Location } from "./s3-settings.js";
import {
  isPackId,
  PackDamagedError,
  type PackRange,
  type PackStorage,
  type StoredPack,
} from "../pack-storage.js";
import type { PackWriter } from "../pack-writer.js";
import { storeError } from "./s3-errors.js";
import { uploadFile } from "./s3-upload.js";

export interface S3PackStorageOptions {
  client: S3Client;
  location: S3Location;
  /** Ranges read from the store are kept here (bounded), and read from here while kept. */
  cache: DiskRangeCache;
  /** Longest a request to the store may take, a body included, in milliseconds. */
  timeoutMs: number;
  /**
   * A range shorter than this is read with the rest of the aligned blocks of this size it lies in
   * (a pack holds a bucket's files side by side, so a page's files are neighbours): one request for
   * the files of a block, not one a file. 0: only the range asked for.
   */
  readAheadBytes?: number;
}

const CHECK_TIMEOUT_MS = 3_000;
const PACK_KEY = /^([0-9a-f]{24})\.pack$/;

/**
 * Packs as objects in an S3-compatible store, one object a pack, `<prefix>packs/<id>.pack`: stored
 * whole (PutObject, or a multipart upload for a large one) before any row names it; read by byte
 * range (GetObject with Range), each range read once into a bounded cache on the local disk and
 * served from there while it is kept. The store failing or not answering within the timeout is an
 * ObjectStoreUnavailableError (503); a missing object a PackMissingError; an object of another size
 * than its row records a PackDamagedError.
 */
export class S3PackStorage implements PackStorage {
  readonly kind = "object-store";
  private readonly fetching = new Map<string, Promise<string>>();

  constructor(private readonly options: S3PackStorageOptions) {}

  async commit(writer: PackWriter): Promise<{ id: string; size: number }> {
    const size = await writer.finish();
    const id = randomBytes(12).toString("hex");
    await this.attempt(`storing pack ${id}`, (_, fresh) =>
      uploadFile(this.options.client, this.target(id), writer.temporaryPath, size, fresh),
    );
    rmSync(writer.temporaryPath, { force: true });
    return { id, size };
  }

  async openRange(
    id: string,
    start: number,
    length: number,
    packSize: number | undefined,
  ): Promise<PackRange> {
    const { cache } = this.options;
    if (packSize === undefined || start + length > packSize) {
      throw new PackDamagedError(
        `its pack ${id} holds ${packSize ?? "no recorded"} bytes, short of the range`,
      );
    }
    // An empty range has no byte to ask for: S3 has no empty byte range.
    if (length === 0) return fileRangeOfNothing();
    let kept = cache.get(id, start, length);
    for (let attempt = 0; ; attempt++) {
      kept ??= await this.fetch(id, start, length, packSize);
      try {
        const file = await open(kept.path, "r");
        return fileRange(file, kept.offset, length, () => void file.close().catch(() => undefined));
      } catch (error) {
        // Evicted between being kept and opened: read it again.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt > 0) throw error;
        kept = undefined;
      }
    }
  }

  async delete(id: string): Promise<void> {
    this.options.cache.dropPack(id);
    await this.attempt(`deleting pack ${id}`, (abortSignal) =>
      this.options.client.send(new DeleteObjectCommand(this.target(id)), { abortSignal }),
    );
  }

  keptPacks(): string[] {
    return this.options.cache.packs();
  }

  forget(id: string): void {
    this.options.cache.dropPack(id);
  }

  async list(): Promise<StoredPack[]> {
    const { client, location } = this.options;
    const prefix = `${location.prefix}packs/`;
    const packs: StoredPack[] = [];
    let token: string | undefined;
    do {
      const page = await this.attempt("listing packs", (abortSignal) =>
        client.send(
          new ListObjectsV2Command({ Bucket: location.bucket, Prefix: prefix, ContinuationToken: token }),
          { abortSignal },
        ),
      );
      for (const object of page.Contents ?? []) {
        const id = PACK_KEY.exec(object.Key?.slice(prefix.length) ?? "")?.[1];
        if (id !== undefined) packs.push({ id, writtenAt: object.LastModified?.getTime() ?? 0 });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return packs;
  }

  async check(): Promise<void> {
    const { client, location } = this.options;
    // A health check answers within seconds, whatever the timeout of reads and writes.
    await this.attempt("reaching the bucket", () =>
      client.send(new HeadBucketCommand({ Bucket: location.bucket }), {
        abortSignal: AbortSignal.timeout(Math.min(this.options.timeoutMs, CHECK_TIMEOUT_MS)),
      }),
    );
  }

  async close(): Promise<void> {
    this.options.client.destroy();
  }

  /**
   * Reads a range, with what `readAheadBytes` adds to it, into the disk cache (once, however many
   * ask at the same time: ranges of one block wait for the same read); where it is kept.
   */
  private async fetch(id: string, start: number, length: number, packSize: number): Promise<KeptRange> {
    const read = readWindow(start, length, packSize, this.options.readAheadBytes ?? 0);
    const key = `${id}.${read.start}.${read.length}`;
    let pending = this.fetching.get(key);
    if (!pending) {
      pending = this.download(id, read.start, read.length, packSize).finally(() => this.fetching.delete(key));
      this.fetching.set(key, pending);
    }
    return { path: await pending, offset: start - read.start };
  }

  private async download(id: string, start: number, length: number, packSize: number): Promise<string> {
    const { cache, client } = this.options;
    const temporary = cache.temporaryPath();
    try {
      await this.attempt(`reading pack ${id}`, async (abortSignal) => {
        const reply = await client.send(
          new GetObjectCommand({ ...this.target(id), Range: `bytes=${start}-${start + length - 1}` }),
          { abortSignal },
        );
        const total = /\/(\d+)$/.exec(reply.ContentRange ?? "")?.[1];
        if (total !== undefined && Number(total) !== packSize) {
          (reply.Body as Readable | undefined)?.destroy();
          throw new PackDamagedError(`its pack ${id} holds ${total} bytes, its row says ${packSize}`);
        }
        await pipeline(reply.Body as Readable, createWriteStream(temporary));
      });
      const { size } = await stat(temporary);
      if (size !== length) {
        throw new PackDamagedError(`its pack ${id} gave ${size} bytes of a range of ${length}`);
      }
      return cache.add(id, start, length, temporary);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }

  /** Runs one request to the store within the timeout; a failure becomes a `storeError`. */
  private async attempt<T>(
    what: string,
    request: (abortSignal: AbortSignal, fresh: () => AbortSignal) => Promise<T>,
  ): Promise<T> {
    const fresh = () => AbortSignal.timeout(this.options.timeoutMs);
    try {
      return await request(fresh(), fresh);
    } catch (error) {
      throw storeError(what, error);
    }
  }

  private target(id: string): { Bucket: string; Key: string } {
    if (!isPackId(id)) throw new Error(`not a pack id: ${JSON.stringify(id)}`);
    const { bucket, prefix } = this.options.location;
    return { Bucket: bucket, Key: `${prefix}packs/${id}.pack` };
  }
}

/**
 * What to read for `length` bytes from `start`: a range shorter than `block`, the whole aligned
 * blocks it lies in (within the pack); a longer one (or with no block), only itself.
 */
export function readWindow(
  start: number,
  length: number,
  packSize: number,
  block: number,
): { start: number; length: number } {
  if (block <= 0 || length >= block) return { start, length };
  const first = Math.floor(start / block) * block;
  const end = Math.min(packSize, Math.ceil((start + length) / block) * block);
  return { start: first, length: end - first };
}

function fileRangeOfNothing(): PackRange {
  return closingAfterStreams(
    () => Readable.from([]),
    () => undefined,
    async () => Buffer.alloc(0),
  );
}
