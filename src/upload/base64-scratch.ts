/**
 * The buffers one request's parts are decoded through, reused from chunk to chunk: the quad a
 * chunk left unfinished, a text chunk joined to it, and the decoded bytes. Allocating both anew
 * for each chunk (200 MB of decoded buffers in a 10,000-file deploy) cost more than decoding, in
 * allocation and in garbage collection. What they hold is good until the next chunk is decoded,
 * so one request (its parts one after another) has its own, never shared with another.
 */
export class Base64Scratch {
  /** The 0 to 3 bytes of text short of a whole quad, of the part being decoded (one at a time). */
  readonly carry = Buffer.alloc(3);
  private text = Buffer.allocUnsafeSlow(0);
  private bytes = Buffer.allocUnsafeSlow(0);

  /** The first `carried` bytes of `carry` followed by `chunk`, in the text buffer. */
  join(carried: number, chunk: Uint8Array): Buffer {
    const length = carried + chunk.length;
    if (this.text.length < length) this.text = Buffer.allocUnsafeSlow(grown(length));
    this.text.set(this.carry.subarray(0, carried), 0);
    this.text.set(chunk, carried);
    return this.text.subarray(0, length);
  }

  /** The bytes buffer, at least `length` long. */
  room(length: number): Buffer {
    if (this.bytes.length < length) this.bytes = Buffer.allocUnsafeSlow(grown(length));
    return this.bytes;
  }
}

/** A size of at least `length`, doubled from 64 KiB: a few sizes serve every chunk. */
function grown(length: number): number {
  let size = 64 * 1024;
  while (size < length) size *= 2;
  return size;
}
