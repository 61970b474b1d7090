import { randomBytes } from "node:crypto";
import { mediaTypeFor } from "../../shared/media-types.js";
import {
  base64Chunks,
  base64Length,
  fileBytes,
  readSmallFile,
  WHOLE_READ_BYTES,
} from "../scan/file-stream.js";
import type { SiteFile } from "../scan/walk.js";

const BATCH_BYTES = 1024 * 1024;

/** One asset of a bucket: its hash and a file that holds its bytes. */
export interface BucketAsset {
  hash: string;
  file: SiteFile;
}

/** A multipart/form-data body that is streamed from the files, with its exact length. */
interface MultipartBody {
  contentType: string;
  length: number;
  /** A fresh stream of the body; `onBytes` is told the raw file bytes as they go. */
  stream: (onBytes?: (bytes: number) => void) => AsyncGenerator<Buffer>;
}

/**
 * The body of a bucket upload (contract §4): one part per asset, field name and filename the
 * hash, the value the bytes in base64, Content-Type the file's media type.
 */
export function bucketBody(assets: readonly BucketAsset[]): MultipartBody {
  const boundary = `----static-deploy-${randomBytes(12).toString("hex")}`;
  const heads = assets.map((asset) =>
    Buffer.from(
      `--${boundary}\r\n` +
        `Content-Disposition: form-data; name="${asset.hash}"; filename="${asset.hash}"\r\n` +
        `Content-Type: ${mediaTypeFor(asset.file.path)}\r\n\r\n`,
      "utf8",
    ),
  );
  const tail = Buffer.from(`--${boundary}--\r\n`, "utf8");
  const crlf = Buffer.from("\r\n", "utf8");
  const length =
    assets.reduce((sum, asset, i) => sum + heads[i]!.length + base64Length(asset.file.size) + 2, 0) +
    tail.length;
  async function* stream(onBytes?: (bytes: number) => void): AsyncGenerator<Buffer> {
    // Small files' parts are gathered into one chunk of about BATCH_BYTES: a chunk and a stream
    // per file cost more than the file for thousands of small ones.
    let batch: Buffer[] = [];
    let batched = 0;
    const take = (): Buffer => {
      const chunk = Buffer.concat(batch, batched);
      batch = [];
      batched = 0;
      return chunk;
    };
    for (const [i, asset] of assets.entries()) {
      const { file } = asset;
      if (file.size <= WHOLE_READ_BYTES) {
        const bytes = readSmallFile(file.absPath, file.path, file.size);
        const text = Buffer.from(bytes.toString("base64"), "latin1");
        batch.push(heads[i]!, text, crlf);
        batched += heads[i]!.length + text.length + crlf.length;
        onBytes?.(bytes.length);
        if (batched >= BATCH_BYTES) yield take();
        continue;
      }
      if (batched > 0) yield take();
      yield heads[i]!;
      const counted = countBytes(fileBytes(file.absPath, file.path, file.size), onBytes);
      for await (const text of base64Chunks(counted)) yield Buffer.from(text, "latin1");
      yield crlf;
    }
    batch.push(tail);
    batched += tail.length;
    yield take();
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, length, stream };
}

async function* countBytes(
  source: AsyncIterable<Buffer>,
  onBytes: ((bytes: number) => void) | undefined,
): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    yield chunk;
    onBytes?.(chunk.length);
  }
}
