import { randomBytes } from "node:crypto";
import { mediaTypeFor } from "../../shared/media-types.js";
import {
  base64Chunks,
  base64Length,
  fileBytes,
  readWholeInto,
  SMALL_FILE_BYTES,
  WHOLE_READ_BYTES,
  writeBase64,
} from "../scan/file-stream.js";
import type { SiteFile } from "../scan/walk-state.js";

const BATCH_BYTES = 1024 * 1024;

/** One asset of a bucket: its hash and a file that holds its bytes, or their base64 text (see KeptTexts). */
export interface BucketAsset {
  hash: string;
  file: SiteFile;
  /** The file's base64 as the hashing read it (a file up to WHOLE_READ_BYTES): sent, the file not read. */
  text?: Buffer;
}

/** A multipart/form-data body that is streamed from the files, with its exact length. */
interface MultipartBody {
  contentType: string;
  length: number;
  /**
   * A fresh stream of the body; `onSent` is told the files and raw file bytes whose chunk the
   * consumer has taken (for a request, written to its socket): bytes as they go, a file once its
   * whole part has gone.
   */
  stream: (onSent?: (files: number, bytes: number) => void) => AsyncGenerator<Buffer>;
}

/**
 * The body of a bucket upload (contract §4): one part per asset, field name and filename the
 * hash, the value the bytes in base64, Content-Type the file's media type.
 */
export function bucketBody(assets: readonly BucketAsset[]): MultipartBody {
  const boundary = `----static-deploy-${randomBytes(12).toString("hex")}`;
  // Each part's head as text, written into the batch where it goes (not a buffer of its own).
  const heads = assets.map(
    (asset) =>
      `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="${asset.hash}"; filename="${asset.hash}"\r\n` +
      `Content-Type: ${mediaTypeFor(asset.file.path)}\r\n\r\n`,
  );
  const headBytes = heads.map((head) => Buffer.byteLength(head, "utf8"));
  const tail = Buffer.from(`--${boundary}--\r\n`, "utf8");
  const crlf = Buffer.from("\r\n", "utf8");
  const length =
    assets.reduce((sum, asset, i) => sum + headBytes[i]! + base64Length(asset.file.size) + 2, 0) +
    tail.length;
  // A batch is sent once it holds BATCH_BYTES: room for that, one more small file's part, the tail;
  // or for the part of one file up to SMALL_FILE_BYTES, alone.
  const batchRoom =
    headBytes.reduce((most, bytes) => Math.max(most, bytes), 0) +
    Math.max(BATCH_BYTES + base64Length(WHOLE_READ_BYTES), base64Length(SMALL_FILE_BYTES)) +
    crlf.length +
    tail.length;
  async function* stream(onSent?: (files: number, bytes: number) => void): AsyncGenerator<Buffer> {
    // Small files' parts are gathered into one chunk of about BATCH_BYTES: a chunk and a stream
    // per file cost more than the file for thousands of small ones. Written into it as they are
    // made (the base64 text too), not each into a buffer of its own and then all copied together.
    // A file up to SMALL_FILE_BYTES is read whole into one buffer kept for the stream (not into
    // a new buffer each with a stat more, nor above 256 KiB through a file stream and the thread
    // pool), and encoded a piece at a time (writeBase64: a long string is costly to make).
    let scratch: Buffer | undefined;
    // The file's bytes, a view of the scratch: good until the next file is read.
    const readWhole = (file: SiteFile): Buffer => {
      const into = (scratch ??= Buffer.allocUnsafeSlow(SMALL_FILE_BYTES + 1));
      return into.subarray(0, readWholeInto(file.absPath, file.path, file.size, into));
    };
    // Two buffers a stream, taken in turn: the request has written a chunk once it asks for the
    // one after the next (sendRequest), so a buffer is filled again only after the other went.
    // New memory for every chunk cost the client a page fault for every 4 KiB sent.
    const buffers: Buffer[] = [];
    let turn = 0;
    let batch: Buffer | undefined;
    let batched = 0;
    const room = () => (batch ??= buffers[turn] ??= Buffer.allocUnsafeSlow(batchRoom));
    const append = (piece: Buffer | string) => {
      const into = room();
      batched += typeof piece === "string" ? into.write(piece, batched, "utf8") : piece.copy(into, batched);
    };
    // The files and bytes of the batch, told once the consumer has taken it (the generator resumes).
    let batchFiles = 0;
    let batchBytes = 0;
    const take = (): Buffer => {
      // The other buffer for the next batch: this one is the consumer's now.
      const chunk = batch?.subarray(0, batched) ?? Buffer.alloc(0);
      if (batch !== undefined) turn = 1 - turn;
      batch = undefined;
      batched = 0;
      return chunk;
    };
    const sent = () => {
      if (batchFiles > 0 || batchBytes > 0) onSent?.(batchFiles, batchBytes);
      batchFiles = 0;
      batchBytes = 0;
    };
    for (const [i, asset] of assets.entries()) {
      const { file } = asset;
      if (file.size <= WHOLE_READ_BYTES) {
        append(heads[i]!);
        if (asset.text === undefined) {
          const bytes = readWhole(file);
          batched += writeBase64(bytes, bytes.length, room(), batched);
        } else {
          append(asset.text);
        }
        append(crlf);
        batchFiles += 1;
        batchBytes += file.size;
        if (batched >= BATCH_BYTES) {
          yield take();
          sent();
        }
        continue;
      }
      if (batched > 0) {
        yield take();
        sent();
      }
      if (file.size <= SMALL_FILE_BYTES) {
        // Read whole like the small ones, its part a chunk of its own.
        const bytes = readWhole(file);
        append(heads[i]!);
        batched += writeBase64(bytes, bytes.length, room(), batched);
        append(crlf);
        yield take();
        onSent?.(1, bytes.length);
        continue;
      }
      yield Buffer.from(heads[i]!, "utf8");
      for await (const text of base64Chunks(fileBytes(file.absPath, file.path, file.size))) {
        yield Buffer.from(text, "latin1");
        // Bytes as their base64 has gone; the file itself once its part is whole.
        onSent?.(0, rawLength(text));
      }
      yield crlf;
      onSent?.(1, 0);
    }
    append(tail);
    yield take();
    sent();
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, length, stream };
}

/** The bytes a piece of base64 holds (only the last piece of a file carries padding). */
function rawLength(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}
