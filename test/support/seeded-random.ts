/** A small seeded generator (mulberry32): the same seed gives the same run, for tests that must replay. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  /** `length` pseudo-random bytes. */
  bytes(length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    let i = 0;
    for (; i + 4 <= length; i += 4) out.writeUInt32LE((this.next() * 4_294_967_296) >>> 0, i);
    for (; i < length; i++) out[i] = this.int(0, 255);
    return out;
  }
}
