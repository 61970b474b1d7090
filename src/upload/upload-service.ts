import { hashExtension } from "../core/asset-hash.js";
import { ASSET_HASH } from "../core/formats.js";
import { mediaTypeFor } from "../core/media-types.js";
import type { BlobStore } from "../platform/local/blob-store.js";
import { Base64FileSink, PartContentError } from "./base64-part.js";
import {
  MultipartError,
  multipartBoundary,
  type PartHeaders,
  type PartSink,
  parseMultipart,
} from "./multipart.js";
import type { UploadTokens } from "./tokens.js";
import { UploadError, UploadErrorCode, badRequest, unauthorized } from "./upload-errors.js";
import type { UploadSessions } from "./upload-sessions.js";

export interface UploadServiceOptions {
  accountId: string;
  sessions: UploadSessions;
  blobs: BlobStore;
  tokens: UploadTokens;
  maxAssetBytes: number;
  /** Bytes one bucket request may carry, multipart framing included. */
  maxRequestBytes: number;
  now: () => number;
}

/** What a bucket upload answers: 202 while assets are missing, 201 with the completion token. */
export type BucketResult = { status: 202 } | { status: 201; jwt: string };

// A media type as sent in a part header: `type/subtype` and optional parameters, printable ASCII.
const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;[\x20-\x7e]*)?$/i;
const discard: PartSink = { write: () => undefined, end: () => undefined };

/**
 * The built-in upload service: verifies each uploaded asset against its hash before keeping it,
 * stores content once whoever uploads it, and issues the completion token once the session's
 * manifest is whole.
 */
export class UploadService {
  constructor(private readonly options: UploadServiceOptions) {}

  /** Receives one bucket: a multipart body of base64 parts named by hash. */
  async receiveBucket(input: {
    accountId: string;
    token: string | undefined;
    contentType: string | undefined;
    body: AsyncIterable<Uint8Array>;
  }): Promise<BucketResult> {
    const { sessions, tokens, now } = this.options;
    if (input.accountId !== this.options.accountId) {
      throw new UploadError(404, UploadErrorCode.accountNotFound, "account not found");
    }
    const sessionId = input.token && (await tokens.verify("upload", input.token, new Date(now())));
    const session = sessionId ? sessions.get(sessionId) : undefined;
    if (!session || session.expiresAt <= now()) throw unauthorized();
    const boundary = multipartBoundary(input.contentType);
    if (!boundary) {
      throw new UploadError(415, UploadErrorCode.badRequest, "Content-Type must be multipart/form-data");
    }
    const receiver = new BucketReceiver(this.options, session.id);
    try {
      await parseMultipart(limitBytes(input.body, this.options.maxRequestBytes), boundary, (part) =>
        receiver.open(part),
      );
    } catch (error) {
      await receiver.abort();
      if (error instanceof MultipartError || error instanceof PartContentError)
        throw badRequest(error.message);
      throw error;
    }
    if (sessions.missingCount(session.id) > 0) return { status: 202 };
    const jwt = await tokens.sign(
      ["completion"],
      session.id,
      this.options.accountId,
      new Date(session.expiresAt),
    );
    return { status: 201, jwt };
  }
}

/** Passes the body through, refusing it once it exceeds `max` bytes. */
async function* limitBytes(body: AsyncIterable<Uint8Array>, max: number): AsyncIterable<Uint8Array> {
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > max) throw new UploadError(413, UploadErrorCode.tooLarge, `bucket exceeds ${max} bytes`);
    yield chunk;
  }
}

/** The parts of one request: each verified against its hash, then committed as a blob. */
class BucketReceiver {
  private readonly seen = new Set<string>();
  private current: { sink: Base64FileSink; file: string } | undefined;

  constructor(
    private readonly options: UploadServiceOptions,
    private readonly sessionId: string,
  ) {}

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
    if (this.seen.has(hash) || sessions.hasBlob(hash)) return discard;
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
        // The file is durable before the row that names it.
        blobs.commit(file, hash);
        sessions.addBlob(hash, sink.size, declared ?? mediaTypeFor(path), this.options.now());
        this.current = undefined;
      },
    };
  }

  async abort(): Promise<void> {
    if (!this.current) return;
    const { sink, file } = this.current;
    this.current = undefined;
    await sink.abort();
    this.options.blobs.discard(file);
  }
}
