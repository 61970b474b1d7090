import type { Transform } from "node:stream";
import { promisify } from "node:util";
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from "node:zlib";
import { isCompressible } from "../shared/media-types.js";

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** The content codings the edge makes. */
export type Coding = "br" | "gzip";

// Quality 11 is the smallest but costs about a second per MiB; below 64 KiB it stays a few
// milliseconds, above it quality 9 keeps the first request quick. Either way it is paid once per blob.
const BEST_BROTLI_BELOW = 64 * 1024;
// A large blob's variant is made once too, but the request that asks first waits for it.
const LARGE_BROTLI_QUALITY = 5;
const GZIP_LEVEL = 6;

/**
 * Below this many bytes a coded body is seldom smaller (gzip alone adds 18 bytes of header and
 * trailer), so such files are always sent as they are. At or above it a compressible type is sent
 * in the coding the request prefers, whatever the result's size: the choice never depends on a
 * compression having run, so a HEAD can answer without one.
 */
const MIN_COMPRESS_BYTES = 256;

/** True when a blob of this type and size is sent compressed to clients that accept it. */
export function worthCompressing(contentType: string, size: number): boolean {
  return size >= MIN_COMPRESS_BYTES && isCompressible(contentType);
}

/** Compresses a body held in memory in one coding. */
export function compressBody(body: Buffer, coding: Coding): Promise<Buffer> {
  return coding === "br"
    ? brotliAsync(body, { params: brotliParams(body.length, body.length < BEST_BROTLI_BELOW ? 11 : 9) })
    : gzipAsync(body, { level: GZIP_LEVEL });
}

/** A compressor for making a large blob's variant file in the given coding. */
export function compressorFor(coding: Coding, size: number): Transform {
  return coding === "br"
    ? createBrotliCompress({ params: brotliParams(size, LARGE_BROTLI_QUALITY) })
    : createGzip({ level: GZIP_LEVEL });
}

function brotliParams(size: number, quality: number): Record<number, number> {
  return {
    [constants.BROTLI_PARAM_QUALITY]: quality,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: size,
  };
}
