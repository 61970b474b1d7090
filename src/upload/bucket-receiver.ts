import { hashExtension } from "../core/asset-hash.js";
import { thenNow } from "../shared/maybe-promise.js";
import type { PartHeaders, PartSink } from "./multipart.js";
import { type PartDecoder, PartDecoders } from "./part-decoder.js";
import type { PartHashPool } from "./part-hash-pool.js";
import { PartLookup } from "./part-lookup.js";
import { checkReceivedPart, declaredMediaType, partHashOf } from "./part-verdict.js";
import { UploadError, UploadErrorCode } from "./upload-errors.js";
import type { PackDraft, PartState, ReceivedBucket, StoredBlob, UploadStorage } from "./upload-storage.js";

const discard: PartSink = { write: () => undefined, end: () => undefined };

/** What receiving a bucket needs: where sessions and content are kept, the size limit, the clock. */
export interface BucketReceiverOptions {
  storage: UploadStorage;
  maxAssetBytes: number;
  /** Parts one bucket may hold (BUCKET_MAX_FILES): what prepare groups buckets by. */
  maxFiles: number;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** The hashing threads (UPLOAD_HASH_THREADS); without them parts are hashed on this thread. */
  hashPool?: PartHashPool;
}

/**
 * The parts of one bucket request: each verified against its hash while its decoded bytes are
 * appended to the bucket's pack. `finish` makes the pack durable (one fdatasync, a rename, a
 * directory fsync) and only then writes its rows, in one transaction: a row never names bytes a
 * crash could lose, and a bucket costs one file and one transaction, not one of each per blob. A
 * bucket refused anywhere is `discard`ed whole: no pack, no row.
 */
export class BucketReceiver {
  private readonly seen = new Set<string>();
  private readonly mediaTypes: ReceivedBucket["mediaTypes"] = [];
  private readonly alreadyHeld: string[] = [];
  private readonly stored: StoredBlob[] = [];
  private pack: PackDraft | undefined;
  // Where the part being received starts in the pack; undefined when its bytes are held already.
  private partStart: number | undefined;
  private decoders: PartDecoders | undefined;
  // The part being received, dropped with the bucket when it is refused.
  private part: PartDecoder | undefined;
  // The session's answers for the parts, read a run of hashes at a time (part-lookup.ts).
  private readonly parts: PartLookup;

  constructor(
    private readonly options: BucketReceiverOptions,
    private readonly sessionId: string,
  ) {
    this.parts = new PartLookup(options.storage, sessionId);
  }

  /**
   * Checks a part's name and headers and returns where its body goes: at once when the session's
   * answer for it was read already (most parts), else a promise.
   */
  open(part: PartHeaders): PartSink | Promise<PartSink> {
    const { maxFiles } = this.options;
    const hash = partHashOf(part);
    // Judged before any query (issue 31): one part repeated 2,000 times cost a lookup each.
    if (this.seen.has(hash)) {
      throw new UploadError(
        400,
        UploadErrorCode.duplicatePart,
        `part ${hash} appears more than once in this bucket; a bucket names each asset once`,
      );
    }
    this.seen.add(hash);
    if (this.seen.size > maxFiles) {
      throw new UploadError(
        413,
        UploadErrorCode.tooManyParts,
        `bucket holds more than ${maxFiles} parts (BUCKET_MAX_FILES)`,
      );
    }
    return thenNow(this.parts.state(hash), (known) => this.sinkFor(part, hash, known));
  }

  /** Where the body of part `hash` goes, given what the session says of it. */
  private sinkFor(
    part: PartHeaders,
    hash: string,
    { asset, inSession, held }: PartState,
  ): PartSink | Promise<PartSink> {
    const { storage, maxAssetBytes } = this.options;
    if (asset === undefined) {
      throw new UploadError(
        400,
        UploadErrorCode.hashNotInSession,
        `asset ${hash} is not part of this upload session`,
      );
    }
    const declared = declaredMediaType(part, hash);
    if (inSession) {
      // This session has it already: the bytes are not needed, but the media type still applies.
      if (declared !== undefined) this.mediaTypes.push({ hash, mediaType: declared });
      return discard;
    }
    this.decoders ??= new PartDecoders(this.options.hashPool);
    // Another project's content: verified for this session, and not stored a second time.
    const pack = held ? undefined : (this.pack ??= storage.startPack());
    this.partStart = pack?.length;
    const opening = this.decoders.open(pack, maxAssetBytes, asset.size);
    return thenNow(opening, (decoder) => this.decoding(decoder, hash, asset, declared));
  }

  /** The sink of a part whose body `decoder` takes: at its end, the hash and size are checked and the part kept. */
  private decoding(
    decoder: PartDecoder,
    hash: string,
    asset: { path: string; size: number },
    declared: string | undefined,
  ): PartSink {
    this.part = decoder;
    const ended = (received: string) => this.ended(decoder, hash, asset.size, declared, received);
    return {
      write: (chunk) => decoder.write(chunk),
      end: () => thenNow(decoder.finish(hashExtension(asset.path)), ended),
    };
  }

  /** Checks a part that ended with hash `received` and keeps it. */
  private ended(
    decoder: PartDecoder,
    hash: string,
    declaredSize: number,
    declared: string | undefined,
    received: string,
  ): void {
    checkReceivedPart(hash, received, decoder.size, declaredSize);
    if (declared !== undefined) this.mediaTypes.push({ hash, mediaType: declared });
    if (this.partStart === undefined) this.alreadyHeld.push(hash);
    else this.stored.push({ hash, size: decoder.size, offset: this.partStart });
    this.partStart = undefined;
    this.part = undefined;
  }

  /** Drops everything the request brought, after a refusal or a broken connection: nothing is recorded. */
  async discard(): Promise<void> {
    const writer = this.pack;
    this.pack = undefined;
    await this.part?.abandon();
    await writer?.discard();
  }

  /**
   * Makes the pack of the verified parts durable, then records it, its blobs, the content this
   * session proved it has, and the declared media types, in one transaction. When the pack cannot
   * be made durable (a full disk), nothing is recorded and its file is removed.
   */
  async finish(): Promise<void> {
    const { storage, now } = this.options;
    const writer = this.pack;
    this.pack = undefined;
    let pack: { id: string; size: number } | undefined;
    if (writer && this.stored.length > 0) {
      try {
        pack = await storage.commitPack(writer);
      } catch (error) {
        await writer.discard();
        throw error;
      }
    } else {
      await writer?.discard();
    }
    await storage.record(
      this.sessionId,
      {
        pack: pack && { ...pack, blobs: this.stored },
        alreadyHeld: this.alreadyHeld,
        mediaTypes: this.mediaTypes,
      },
      now(),
    );
  }
}
