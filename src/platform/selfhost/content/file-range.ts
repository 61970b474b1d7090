import type { FileHandle } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { PackRange } from "./pack-storage.js";
import { RangeStream } from "./range-stream.js";

/** A range of an open file: `size` bytes from `offset`. `close` runs once its streams are done. */
export function fileRange(file: FileHandle, offset: number, size: number, close: () => void): PackRange {
  return closingAfterStreams(
    (start, end) => new RangeStream(file, offset + start, offset + end),
    close,
    async () => {
      const body = Buffer.allocUnsafe(size);
      let done = 0;
      while (done < size) {
        const { bytesRead } = await file.read(body, done, size - done, offset + done);
        if (bytesRead === 0) throw new ShortReadError(`range ends after ${done} of ${size} bytes`);
        done += bytesRead;
      }
      return body;
    },
  );
}

/** A file ended before the bytes its row promised. */
export class ShortReadError extends Error {}

/**
 * A body whose `close` waits for the streams made of it: a stream destroyed mid-read (a client
 * that went away) may still have a read in flight, which must not find its descriptor closed.
 */
export function closingAfterStreams(
  open: (start: number, end: number) => Readable,
  close: () => void,
  readAll: () => Promise<Buffer> = () => Promise.reject(new Error("not readable whole")),
): PackRange {
  let streams = 0;
  let closing = false;
  let closed = false;
  const closeWhenIdle = (): void => {
    if (!closing || streams > 0 || closed) return;
    closed = true;
    close();
  };
  return {
    stream: (start, end) => {
      const stream = open(start, end);
      streams++;
      stream.once("close", () => {
        streams--;
        closeWhenIdle();
      });
      return stream;
    },
    readAll,
    close: () => {
      closing = true;
      closeWhenIdle();
    },
  };
}
