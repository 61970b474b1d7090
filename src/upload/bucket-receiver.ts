import { hashExtension } from "../core/asset-hash.js";
import { ASSET_HASH } from "../core/formats.js";
import type { ReceivedBucket } from "../platform/local/upload-sessions.js";
import { Base64FileSink } from "./base64-part.js";
import type { PartHeaders, PartSink } from "./multipart.js";
import { UploadError, UploadErrorCode, badRequest } from "./upload-errors.js";
import type { UploadServiceOptions } from "./upload-service.js";

// A media type as sent in a part header: `type/subtype` and optional parameters, printable ASCII.
const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;[\x20-\x7e]*)?$/i;
const discard: PartSink = { write: () => undefined, end: () => undefined };

/**
 * The parts of one bucket request: each verified against its hash and moved into place as a
 * blob. Rows are written once at the end (`finish`), after the blobs' directories are synced, so
 * a row never names a file a crash could lose, and a bucket costs one transaction, not one a file.
 */
export class BucketReceiver {
  private readonly seen = new Set<string>();
  private readonly received: ReceivedBucket = { blobs: [], mediaTypes: [] };
  private current: { sink: Base64FileSink; file: string } | undefined;

  constructor(
    private readonly options: UploadServiceOptions,
    private readonly sessionId: string,
  ) {}

  /** Checks a part's name and headers and returns where its body goes. */
  async open(part: PartHeaders): Promise<PartSink> {
    const { sessions, blobs, maxAssetBytes } = this.options;
    const hash = part.name ?? part.filename ?? "";
    if (!ASSET_HASH.test(hash))
      throw badRequest(`part name ${JSON.stringify(hash.slice(0, 80))} is not an asset hash`);
    const path = sessions.pathOf(this.sessionId, hash);
    if (path === undefined) {
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
    if (this.seen.has(hash) || sessions.hasBlob(hash)) {
      // Held already: the bytes are not needed, but the media type still applies to this session.
      if (declared !== undefined) this.received.mediaTypes.push({ hash, mediaType: declared });
      return discard;
    }
    this.seen.add(hash);
    const file = blobs.temporaryPath();
    const sink = await Base64FileSink.create(file, maxAssetBytes);
    this.current = { sink, file };
    return {
      write: (chunk) => sink.write(chunk),
      end: async () => {
        await sink.end();
        if (sink.hash(hashExtension(path)) !== hash) {
          throw new UploadError(
            400,
            UploadErrorCode.hashMismatch,
            `content of part ${hash} does not match its hash`,
          );
        }
        blobs.commit(file, hash);
        this.current = undefined;
        this.received.blobs.push({ hash, size: sink.size });
        if (declared !== undefined) this.received.mediaTypes.push({ hash, mediaType: declared });
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

  /** Makes the received blobs' directory entries durable, then records them and the media types. */
  finish(): void {
    const { blobs, sessions, now } = this.options;
    blobs.syncDirectories(this.received.blobs.map((blob) => blob.hash));
    sessions.record(this.sessionId, this.received, now());
  }
}
