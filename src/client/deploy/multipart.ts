import { randomBytes } from "node:crypto";
import { mediaTypeFor } from "../../shared/media-types.js";
import { base64Chunks, base64Length, fileBytes } from "../scan/file-stream.js";
import type { SiteFile } from "../scan/walk.js";

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
    for (const [i, asset] of assets.entries()) {
      yield heads[i]!;
      const { file } = asset;
      const counted = countBytes(fileBytes(file.absPath, file.path, file.size), onBytes);
      for await (const text of base64Chunks(counted)) yield Buffer.from(text, "latin1");
      yield crlf;
    }
    yield tail;
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
