import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";

/** Files up to this size are stored with one PutObject; larger ones in parts. */
export const MULTIPART_FROM_BYTES = 16 * 1024 * 1024;
/** The size of each part but the last (S3 wants at least 5 MiB). */
export const PART_BYTES = 8 * 1024 * 1024;

/**
 * Stores a file of `size` bytes as the object `target`: in one PutObject, or, from
 * MULTIPART_FROM_BYTES, as a multipart upload of PART_BYTES parts, aborted if a part fails (so no
 * part is left billed in the bucket). The object appears whole or not at all. `signal` gives each
 * request its own deadline.
 */
export async function uploadFile(
  client: S3Client,
  target: { Bucket: string; Key: string },
  path: string,
  size: number,
  signal: () => AbortSignal,
): Promise<void> {
  if (size < MULTIPART_FROM_BYTES) {
    const body = createReadStream(path);
    // A send that fails before reading (the store down) leaves the stream to open the file later,
    // after the caller removed it: without a listener, that ENOENT was an uncaught exception
    // that would end the process. The send itself reports any failure to read while it reads.
    body.on("error", () => undefined);
    try {
      await client.send(new PutObjectCommand({ ...target, Body: body, ContentLength: size }), {
        abortSignal: signal(),
      });
    } finally {
      body.destroy();
    }
    return;
  }
  const { UploadId } = await client.send(new CreateMultipartUploadCommand(target), { abortSignal: signal() });
  const file = await open(path, "r");
  try {
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
    for (let offset = 0, number = 1; offset < size; offset += PART_BYTES, number++) {
      const length = Math.min(PART_BYTES, size - offset);
      const body = Buffer.allocUnsafe(length);
      const { bytesRead } = await file.read(body, 0, length, offset);
      if (bytesRead !== length) throw new Error(`${path} ends before ${size} bytes`);
      const { ETag } = await client.send(
        new UploadPartCommand({ ...target, UploadId, PartNumber: number, Body: body, ContentLength: length }),
        { abortSignal: signal() },
      );
      parts.push({ ETag, PartNumber: number });
    }
    await client.send(
      new CompleteMultipartUploadCommand({ ...target, UploadId, MultipartUpload: { Parts: parts } }),
      { abortSignal: signal() },
    );
  } catch (error) {
    await client
      .send(new AbortMultipartUploadCommand({ ...target, UploadId }), { abortSignal: signal() })
      .catch(() => undefined);
    throw error;
  } finally {
    await file.close();
  }
}
