import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";

const CHUNK_BYTES = 64 * 1024;

/**
 * Bytes `start` to `end` (inclusive) of an open file, read positionally. Unlike `fs` read streams
 * it never closes the file, even when destroyed (a client going away): the file is shared by other
 * readers. Destroying it waits for a read in flight, so its owner may close the file on 'close'.
 */
export class RangeStream extends Readable {
  private position: number;
  private reading: Promise<unknown> | undefined;

  constructor(
    private readonly file: FileHandle,
    start: number,
    private readonly end: number,
  ) {
    super({ highWaterMark: CHUNK_BYTES });
    this.position = start;
  }

  override _read(size: number): void {
    const wanted = Math.min(Math.max(size, CHUNK_BYTES), this.end - this.position + 1);
    if (wanted <= 0) {
      this.push(null);
      return;
    }
    const buffer = Buffer.allocUnsafe(wanted);
    this.reading = this.file.read(buffer, 0, wanted, this.position).then(
      ({ bytesRead }) => {
        this.reading = undefined;
        if (this.destroyed) return;
        if (bytesRead === 0) {
          this.destroy(new Error(`file ends at ${this.position}, before ${this.end + 1}`));
          return;
        }
        this.position += bytesRead;
        this.push(bytesRead === wanted ? buffer : buffer.subarray(0, bytesRead));
      },
      (error: unknown) => {
        this.reading = undefined;
        this.destroy(error as Error);
      },
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.reading) return callback(error);
    void this.reading.finally(() => callback(error));
  }
}
