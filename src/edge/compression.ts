import { readFile } from "node:fs/promises";
import type { Transform } from "node:stream";
import { promisify } from "node:util";
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from "node:zlib";
import { isCompressible } from "../shared/media-types.js";
import type { CachedBlob } from "./blob-cache.js";

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

// Quality 11 is the smallest but costs about a second per MiB; below 64 KiB it stays a few
// milliseconds, above it quality 9 keeps the first request quick. Either way it is paid once per blob.
const BEST_BROTLI_BELOW = 64 * 1024;
// Streaming large files compresses on every request, so it uses fast settings.
const STREAM_BROTLI_QUALITY = 4;
const GZIP_LEVEL = 6;

/** Below this many bytes no coding makes a body smaller (headers and trailers alone are larger). */
const MIN_COMPRESS_BYTES = 32;

/** True when a blob of this type and size is worth sending compressed. */
export function worthCompressing(contentType: string, size: number): boolean {
  return size >= MIN_COMPRESS_BYTES && isCompressible(contentType);
}

/** Reads a whole blob into memory with its compressed variants; a size mismatch means a damaged blob. */
export async function loadBlobBody(path: string, size: number, contentType: string): Promise<CachedBlob> {
  const body = await readFile(path);
  if (body.length !== size) {
    throw new Error(`blob ${path} holds ${body.length} bytes, its row says ${size}`);
  }
  if (!worthCompressing(contentType, size)) return { body, br: undefined, gzip: undefined };
  const [br, gz] = await Promise.all([
    brotliAsync(body, { params: brotliParams(size, size < BEST_BROTLI_BELOW ? 11 : 9) }),
    gzipAsync(body, { level: GZIP_LEVEL }),
  ]);
  // A variant that saves nothing is dropped: the identity body is then sent to everyone.
  return {
    body,
    br: br.length < size ? br : undefined,
    gzip: gz.length < size ? gz : undefined,
  };
}

/** A compressor for streaming a large blob in the given coding. */
export function compressorFor(encoding: "br" | "gzip", size: number): Transform {
  return encoding === "br"
    ? createBrotliCompress({ params: brotliParams(size, STREAM_BROTLI_QUALITY) })
    : createGzip({ level: GZIP_LEVEL });
}

function brotliParams(size: number, quality: number): Record<number, number> {
  return {
    [constants.BROTLI_PARAM_QUALITY]: quality,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: size,
  };
}
