import { ObjectStoreUnavailableError } from "../core/errors.js";
import { isOutOfSpace } from "../shared/out-of-space.js";
import { PartContentError } from "./part-content-error.js";
import { BucketReceiver, type BucketReceiverOptions } from "./bucket-receiver.js";
import { MultipartError, multipartBoundary, parseMultipart } from "./multipart.js";
import {
  UploadError,
  UploadErrorCode,
  badRequest,
  insufficientStorage,
  objectStoreUnavailable,
  unauthorized,
} from "./upload-errors.js";
import type { SessionTokens } from "./upload-storage.js";

export interface UploadServiceOptions extends BucketReceiverOptions {
  accountId: string;
  tokens: SessionTokens;
  /** Bytes one bucket request may carry, multipart framing included. */
  maxRequestBytes: number;
}

/** What a bucket upload answers: 202 while assets are missing, 201 with the completion token. */
export type BucketResult = { status: 202 } | { status: 201; jwt: string };

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
    /** The request's Content-Length, when it declared one. */
    contentLength?: number;
    body: AsyncIterable<Uint8Array>;
  }): Promise<BucketResult> {
    try {
      return await this.receive(input);
    } catch (error) {
      // A full disk is the server's condition, not the request's: 507, which clients report at once.
      if (isOutOfSpace(error)) throw insufficientStorage();
      if (error instanceof ObjectStoreUnavailableError) throw objectStoreUnavailable(error);
      throw error;
    }
  }

  private async receive(input: {
    accountId: string;
    token: string | undefined;
    contentType: string | undefined;
    contentLength?: number;
    body: AsyncIterable<Uint8Array>;
  }): Promise<BucketResult> {
    const { storage, tokens, now } = this.options;
    if (input.accountId !== this.options.accountId) {
      throw new UploadError(404, UploadErrorCode.accountNotFound, "account not found");
    }
    const sessionId = input.token && (await tokens.verify("upload", input.token, new Date(now())));
    const session = sessionId ? await storage.session(sessionId) : undefined;
    if (!session || session.expiresAt <= now()) throw unauthorized();
    const boundary = multipartBoundary(input.contentType);
    if (!boundary) {
      throw new UploadError(415, UploadErrorCode.badRequest, "Content-Type must be multipart/form-data");
    }
    // Below MIN_FREE_BYTES (counting what this request declares it brings), nothing is read.
    if (await storage.lacksRoomFor(input.contentLength ?? 0)) {
      throw insufficientStorage();
    }
    const receiver = new BucketReceiver(this.options, session.id);
    try {
      await parseMultipart(limitBytes(input.body, this.options.maxRequestBytes), boundary, (part) =>
        receiver.open(part),
      );
    } catch (error) {
      // A bucket is taken whole or not at all: a refused one leaves no pack and no row.
      await receiver.discard();
      if (error instanceof MultipartError || error instanceof PartContentError)
        throw badRequest(error.message);
      throw error;
    }
    await receiver.finish();
    if ((await storage.missingCount(session.id)) > 0) return { status: 202 };
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
