import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { isPackId } from "./pack-storage.js";

// `<pack id>.<start>.<length>`: a range of a pack, immutable like the pack itself.
const ENTRY = /^([0-9a-f]{24})\.(\d+)\.(\d+)$/;

/** Where a kept range's bytes are: the file of an entry, from `offset` in it. */
export interface KeptRange {
  path: string;
  offset: number;
}

/**
 * Ranges of packs kept on the local disk, in one folder, least recently used first out once they
 * hold more than `maxBytes`. A pack never changes, so an entry never goes stale; it is written to
 * a temporary name and renamed into place whole, so what the folder holds at a start (kept across
 * restarts) is whole too. A range is found in any entry of its pack that holds all of it (a read
 * ahead keeps more than was asked for). An entry removed while a reader has it open stays readable
 * to it.
 */
export class DiskRangeCache {
  // Insertion order is use order: the first entry is the least recently used.
  private readonly entries = new Map<string, number>();
  // The entries of each pack, with where they start and end: a pack's ranges are found and dropped
  // without a walk of every entry.
  private readonly byPack = new Map<string, Map<string, { start: number; end: number }>>();
  private bytes = 0;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {
    mkdirSync(dir, { recursive: true });
    const found = readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (!ENTRY.test(name)) {
        rmSync(path, { force: true, recursive: true }); // a temporary file a crash left
        return [];
      }
      const stat = statSync(path);
      return [{ name, size: stat.size, used: stat.atimeMs }];
    });
    for (const entry of found.sort((a, b) => a.used - b.used)) this.remember(entry.name, entry.size);
    this.evict();
  }

  /** Where `length` bytes of pack `id` from `start` are kept, if they are; marks that entry used. */
  get(id: string, start: number, length: number): KeptRange | undefined {
    const exact = nameOf(id, start, length);
    let found = this.entries.has(exact) ? { name: exact, offset: 0 } : undefined;
    if (!found) {
      for (const [name, range] of this.byPack.get(id) ?? []) {
        if (range.start > start || range.end < start + length) continue;
        found = { name, offset: start - range.start };
        break;
      }
    }
    if (!found) return undefined;
    const size = this.entries.get(found.name)!;
    this.entries.delete(found.name);
    this.entries.set(found.name, size);
    return { path: join(this.dir, found.name), offset: found.offset };
  }

  /** A fresh path in the folder to write an entry to before `add`. */
  temporaryPath(): string {
    return join(this.dir, `tmp-${randomBytes(8).toString("hex")}`);
  }

  /** Makes the written `temporary` file the entry of that range; returns its path. */
  add(id: string, start: number, length: number, temporary: string): string {
    const name = nameOf(id, start, length);
    const path = join(this.dir, name);
    renameSync(temporary, path);
    this.forgetEntry(name);
    this.remember(name, length);
    this.evict(name);
    return path;
  }

  /** Removes every kept range of pack `id` (it was deleted). */
  dropPack(id: string): void {
    for (const name of [...(this.byPack.get(id)?.keys() ?? [])]) this.removeEntry(name);
  }

  /** The packs of which a range is kept. */
  packs(): string[] {
    return [...this.byPack.keys()];
  }

  /** Bytes kept. */
  get size(): number {
    return this.bytes;
  }

  private remember(name: string, size: number): void {
    this.entries.set(name, size);
    this.bytes += size;
    const [pack, start] = partsOf(name);
    const ranges = this.byPack.get(pack) ?? new Map<string, { start: number; end: number }>();
    ranges.set(name, { start, end: start + size });
    this.byPack.set(pack, ranges);
  }

  private forgetEntry(name: string): void {
    const size = this.entries.get(name);
    if (size === undefined) return;
    this.entries.delete(name);
    this.bytes -= size;
    const [pack] = partsOf(name);
    const ranges = this.byPack.get(pack);
    ranges?.delete(name);
    if (ranges?.size === 0) this.byPack.delete(pack);
  }

  private removeEntry(name: string): void {
    this.forgetEntry(name);
    rmSync(join(this.dir, name), { force: true });
  }

  /** Removes the least recently used entries until within bounds, `keep` last of all. */
  private evict(keep?: string): void {
    for (const name of [...this.entries.keys()]) {
      if (this.bytes <= this.maxBytes) return;
      if (name !== keep) this.removeEntry(name);
    }
    if (this.bytes > this.maxBytes && keep !== undefined) this.removeEntry(keep);
  }
}

/** The pack an entry's name is a range of, and where the range starts in it. */
function partsOf(name: string): [string, number] {
  const [pack, start] = name.split(".");
  return [pack!, Number(start)];
}

function nameOf(id: string, start: number, length: number): string {
  if (!isPackId(id)) throw new Error(`not a pack id: ${JSON.stringify(id)}`);
  return `${id}.${start}.${length}`;
}
