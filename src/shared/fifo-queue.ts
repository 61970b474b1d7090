/** Entries a chunk holds: large enough that chunks are rare, small enough to free memory soon. */
const CHUNK = 4096;

/**
 * A first-in, first-out queue whose push, peek and shift each cost the same however long it is
 * (an array's `shift` moves every element): a list of fixed-size chunks, the first one dropped
 * once it is read through.
 */
export class FifoQueue<T> {
  private chunks: T[][] = [[]];
  private head = 0;
  private count = 0;

  /** How many entries are queued. */
  get length(): number {
    return this.count;
  }

  /** Adds `value` at the end. */
  push(value: T): void {
    let last = this.chunks[this.chunks.length - 1]!;
    if (last.length === CHUNK) {
      last = [];
      this.chunks.push(last);
    }
    last.push(value);
    this.count++;
  }

  /** The first entry, or undefined when empty. */
  peek(): T | undefined {
    return this.count === 0 ? undefined : this.chunks[0]![this.head];
  }

  /** Removes and returns the first entry, or undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const first = this.chunks[0]!;
    const value = first[this.head]!;
    this.count--;
    if (++this.head === CHUNK) {
      // The chunk is read through: drop it (the list is short: 245 chunks for a million entries).
      this.chunks.shift();
      if (this.chunks.length === 0) this.chunks.push([]);
      this.head = 0;
    } else if (this.count === 0) {
      this.chunks = [[]];
      this.head = 0;
    }
    return value;
  }
}
