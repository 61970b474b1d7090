import { randomBytes } from "node:crypto";

/** One part of a bucket upload: the hash, the bytes, and the part's Content-Type (or none). */
export interface UploadPart {
  hash: string;
  bytes: Buffer;
  contentType?: string;
}

/**
 * Builds a bucket body byte for byte, as Cloudflare's clients send it: one part per asset, named
 * and filenamed by its hash, holding base64. A part without `contentType` has no Content-Type
 * header at all, which fetch's FormData cannot produce.
 */
export function multipartBody(parts: UploadPart[]): { body: Buffer; contentType: string } {
  const boundary = `----test${randomBytes(8).toString("hex")}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.hash}"; filename="${part.hash}"\r\n`;
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.bytes.toString("base64")), Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POSTs a bucket to the upload URL with the upload token. */
export async function uploadBucket(
  uploadUrl: string,
  token: string,
  parts: UploadPart[],
): Promise<{ status: number; body: any }> {
  const { body, contentType } = multipartBody(parts);
  const response = await fetch(uploadUrl, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": contentType },
    body,
  });
  return { status: response.status, body: await response.json() };
}
