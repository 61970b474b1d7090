import { AssetHasher, hashExtension } from "../core/asset-hash.js";
import { ASSET_HASH } from "../core/formats.js";
import type { BlobStore } from "../platform/local/blob-store.js";
import type { ReceivedBucket, UploadSessions } from "../platform/local/upload-sessions.js";
import { Base64PartSink } from "./base64-part.js";
import type { PartHeaders, PartSink } from "./multipart.js";
import { UploadError, UploadErrorCode, badRequest } from "./upload-errors.js";

// A media type as sent in a part header: `type/subtype` and optional parameters, printable ASCII.
const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;[\x20-\x7e]*)?$/i;
const discard: PartSink = { write: () => undefined, end: () => undefined };
// Parts up to this size are held in memory until they are stored: one write instead of a stream.
const MEMORY_PART_BYTES = 256 * 1024;
// Blobs being made durable at once, per request; bounds the memory of parts held for storing.
const STORING_AT_ONCE = 16;

/** What receiving a bucket needs: where sessions and blobs are kept, the size limit, the clock. */
export interface BucketReceiverOptions {
  sessions: UploadSessions;
  blobs: BlobStore;
  maxAssetBytes: number;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * The parts of one bucket request: each verified against its hash, then stored (written,
 * fdatasynced, renamed) in the background while the next parts are read. `finish` waits for them,
 * syncs their directories and only then writes their rows, in one transaction: a row never names
 * a file a crash could lose, and a bucket costs one transaction, not one a file.
 */
export class BucketReceiver {
  private readonly seen = new Set<string>();
  private readonly mediaTypes: ReceivedBucket["mediaTypes"] = [];
  private readonly alreadyHeld: string[] = [];
  private readonly storing = new Set<Promise<unknown>>();
  private readonly stored: Promise<{ hash: string; size: number }>[] = [];
  private current: { sink: Base64PartSink; file: string } | undefined;
  private hasher: AssetHasher | undefined;

  constructor(
    private readonly options: BucketReceiverOptions,
    private readonly sessionId: string,
  ) {}

  /** Checks a part's name and headers and returns where its body goes. */
  async open(part: PartHeaders): Promise<PartSink> {
    const { sessions, blobs, maxAssetBytes } = this.options;
    const hash = part.name ?? part.filename ?? "";
    if (!ASSET_HASH.test(hash))
      throw badRequest(`part name ${JSON.stringify(hash.slice(0, 80))} is not an asset hash`);
    const asset = sessions.assetOf(this.sessionId, hash);
    if (asset === undefined) {
      throw new UploadError(
        400,
        UploadErrorCode.hashNotInSession,
        `asset ${hash} is not part of this upload session`,
      );
    }
    const declared = part.headers["content-type"];
    if (declared !== undefined && !MEDIA_TYPE.test(declared)) {
      throw badRequest(`part ${hash} has an invalid Content-Type`);
    }
    if (this.seen.has(hash) || sessions.sessionHas(this.sessionId, hash)) {
      // This session has it already: the bytes are not needed, but the media type still applies.
      if (declared !== undefined) this.mediaTypes.push({ hash, mediaType: declared });
      return discard;
    }
    this.seen.add(hash);
    this.hasher ??= await AssetHasher.create();
    const file = blobs.temporaryPath();
    const { path, size: declaredSize } = asset;
    const sink = new Base64PartSink(this.hasher, file, {
      maxBytes: maxAssetBytes,
      memoryBytes: MEMORY_PART_BYTES,
    });
    this.current = { sink, file };
    return {
      write: (chunk) => sink.write(chunk),
      end: async () => {
        await sink.end();
        this.current = undefined;
        if (sink.hash(hashExtension(path)) !== hash) {
          await sink.abort();
          blobs.discard(file);
          throw new UploadError(
            400,
            UploadErrorCode.hashMismatch,
            `content of part ${hash} does not match its hash`,
          );
        }
        // The quotas counted the size the manifest declared: a part may not bring more.
        if (sink.size > declaredSize) {
          await sink.abort();
          blobs.discard(file);
          throw new UploadError(
            413,
            UploadErrorCode.quotaExceeded,
            `part ${hash} holds ${sink.size} bytes, more than the ${declaredSize} its manifest entry ` +
              "declared, which is what the storage quotas (PROJECT_QUOTA_BYTES, PENDING_QUOTA_BYTES) counted",
          );
        }
        if (declared !== undefined) this.mediaTypes.push({ hash, mediaType: declared });
        // Another project's blob: verified for this session, and not stored a second time.
        if (sessions.hasBlob(hash)) {
          blobs.discard(file);
          this.alreadyHeld.push(hash);
          return;
        }
        await this.store(sink, file, hash);
      },
    };
  }

  /** Discards the part being received, after a refusal or a broken connection. */
  async abort(): Promise<void> {
    if (!this.current) return;
    const { sink, file } = this.current;
    this.current = undefined;
    await sink.abort();
    this.options.blobs.discard(file);
  }

  /**
   * Waits for the blobs being stored, makes their directory entries durable, then records them and
   * the declared media types. A blob that failed to store is not recorded, and its error is thrown.
   */
  async finish(): Promise<void> {
    const { blobs, sessions, now } = this.options;
    const results = await Promise.allSettled(this.stored);
    const done = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    await blobs.syncDirectories(done.map((blob) => blob.hash));
    sessions.record(
      this.sessionId,
      { blobs: done, alreadyHeld: this.alreadyHeld, mediaTypes: this.mediaTypes },
      now(),
    );
    const failed = results.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
  }

  private async store(sink: Base64PartSink, file: string, hash: string): Promise<void> {
    if (this.storing.size >= STORING_AT_ONCE) await Promise.race(this.storing);
    const size = sink.size;
    const task = this.options.blobs.store(sink.received(), file, hash).then(() => ({ hash, size }));
    const settled: Promise<unknown> = task.then(
      () => this.storing.delete(settled),
      () => {
        this.storing.delete(settled);
        this.options.blobs.discard(file);
      },
    );
    this.storing.add(settled);
    this.stored.push(task);
  }
}
