import { closeSync, createReadStream, openSync, readFileSync, readSync } from "node:fs";
import { CliError } from "../errors.js";

/** Read size: a multiple of 3, so each chunk's base64 joins the next without padding. */
const READ_CHUNK_BYTES = 3 * 64 * 1024;
/**
 * Files up to this size are read in one call: a stream per file (open, a 192 KiB buffer, reads,
 * close, each a trip through the thread pool) cost more than the file; for 5,000 files of 2 KB it
 * was most of the upload's time on the client.
 */
export const WHOLE_READ_BYTES = 256 * 1024;

/**
 * Reads a small file (up to WHOLE_READ_BYTES) in one synchronous call, failing like `fileBytes`.
 * From the page cache it takes microseconds, less than scheduling an asynchronous read.
 */
export function readSmallFile(absPath: string, label: string, expectedSize: number): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(absPath);
  } catch (error) {
    throw readFailed(label, error);
  }
  if (bytes.length !== expectedSize) throw fileChangedError(label, expectedSize);
  return bytes;
}

/**
 * Files up to this size are read whole into a reused buffer, hashed in one update and encoded in
 * one piece; larger ones are streamed.
 */
export const SMALL_FILE_BYTES = 1024 * 1024;

/**
 * Reads a whole file of `expectedSize` bytes (less than `into`'s length) into `into` with three
 * synchronous calls: open, one read of one byte more than expected, close. A read that stops short
 * is the file's end, as it is for a regular file, so no second read asks for it again (a first
 * deploy of 50,000 files made 50,000 such reads, twice); more bytes than expected, or fewer, is
 * FILE_CHANGED. No buffer is made per file. Returns the length read.
 */
export function readWholeInto(absPath: string, label: string, expectedSize: number, into: Buffer): number {
  let fd: number;
  try {
    fd = openSync(absPath, "r");
  } catch (error) {
    throw readFailed(label, error);
  }
  let total = 0;
  try {
    for (;;) {
      const read = readSync(fd, into, total, expectedSize + 1 - total, null);
      total += read;
      if (read === 0 || total >= expectedSize) break;
    }
  } catch (error) {
    throw readFailed(label, error);
  } finally {
    closeSync(fd);
  }
  if (total !== expectedSize) throw fileChangedError(label, expectedSize);
  return total;
}

function readFailed(label: string, error: unknown): CliError {
  return new CliError("READ_FAILED", `cannot read ${label}: ${(error as Error).message}`);
}

/**
 * Bytes encoded to base64 at a time: their text (64 KiB) is a string of V8's young generation.
 * A longer one is made in its large-object space, a mapping of its own each time: encoding 200 MB
 * in pieces of 96 KiB or more took 7× the time of pieces of 48 KiB (the time of the copy alone).
 */
export const ENCODE_PIECE_BYTES = 3 * 16 * 1024;

/** Writes the base64 of `bytes[0, length)` into `into` at `offset`, a piece at a time; returns the characters written. */
export function writeBase64(bytes: Buffer, length: number, into: Buffer, offset: number): number {
  let at = offset;
  for (let start = 0; start < length; start += ENCODE_PIECE_BYTES) {
    const end = Math.min(length, start + ENCODE_PIECE_BYTES);
    at += into.write(bytes.toString("base64", start, end), at, "latin1");
  }
  return at - offset;
}

/** The base64 length of `size` bytes. */
export function base64Length(size: number): number {
  return 4 * Math.ceil(size / 3);
}

/**
 * Base64 of a byte stream, in pieces whose concatenation is the base64 of the whole: each piece
 * but the last encodes a multiple of 3 bytes, leftovers carried to the next.
 */
export async function* base64Chunks(source: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of source) {
    const bytes =
      carry.length > 0
        ? Buffer.concat([carry, chunk])
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const usable = bytes.length - (bytes.length % 3);
    for (let start = 0; start < usable; start += ENCODE_PIECE_BYTES) {
      yield bytes.toString("base64", start, Math.min(usable, start + ENCODE_PIECE_BYTES));
    }
    carry = bytes.subarray(usable);
  }
  if (carry.length > 0) yield carry.toString("base64");
}

/**
 * Streams a file's bytes, failing with a CliError naming `label` when it cannot be read or its
 * size is no longer `expectedSize` (it changed during the deploy).
 */
export async function* fileBytes(
  absPath: string,
  label: string,
  expectedSize: number,
): AsyncGenerator<Buffer> {
  if (expectedSize <= WHOLE_READ_BYTES) {
    yield readSmallFile(absPath, label, expectedSize);
    return;
  }
  let total = 0;
  try {
    for await (const chunk of createReadStream(absPath, { highWaterMark: READ_CHUNK_BYTES })) {
      total += (chunk as Buffer).length;
      if (total > expectedSize) break;
      yield chunk as Buffer;
    }
  } catch (error) {
    throw readFailed(label, error);
  }
  if (total !== expectedSize) throw fileChangedError(label, expectedSize);
}

/** The error for a file whose size is no longer the one the walk saw. */
export function fileChangedError(label: string, expectedSize: number): CliError {
  return new CliError(
    "FILE_CHANGED",
    `${label} changed while deploying (${expectedSize} bytes expected)`,
    "Run deploy again once the build has finished.",
  );
}
