import type { FileHandle } from "node:fs/promises";
import { openSized } from "../../../shared/sized-file.js";

/** An open pack: its file and the size it had when opened. Give it back with `release`. */
export interface PackHandle {
  readonly file: FileHandle;
  readonly size: number;
  release(): void;
}

interface Entry {
  file: FileHandle;
  size: number;
  readers: number;
  // Set when the entry left the cache (evicted or its pack deleted): close once unused.
  retired: boolean;
}

const DEFAULT_MAX_OPEN = 256;

/**
 * Open pack files, shared by every reader and bounded: at most `maxOpen` are kept open while
 * unused, the least recently opened going first. A handle in use is never closed under its
 * reader; one that leaves the cache is closed when its last reader releases it. A deleted pack's
 * file stays readable through handles opened before (POSIX unlink), so a reader that started
 * before a compaction finishes its read.
 */
export class PackHandles {
  private readonly entries = new Map<string, Entry>();
  private readonly opening = new Map<string, Promise<Entry>>();

  constructor(
    private readonly pathOf: (id: string) => string,
    private readonly maxOpen = DEFAULT_MAX_OPEN,
  ) {}

  /** Opens pack `id` (or takes its open handle). Rejects with ENOENT when the file is gone. */
  async acquire(id: string): Promise<PackHandle> {
    let entry = this.entries.get(id);
    if (!entry) {
      let pending = this.opening.get(id);
      if (!pending) {
        pending = this.openEntry(id).finally(() => this.opening.delete(id));
        this.opening.set(id, pending);
      }
      entry = await pending;
    }
    entry.readers++;
    const held = entry;
    let released = false;
    return {
      file: held.file,
      size: held.size,
      release: () => {
        if (released) return;
        released = true;
        held.readers--;
        if (held.retired && held.readers === 0) void held.file.close().catch(() => undefined);
      },
    };
  }

  /** Drops pack `id` from the cache (it was deleted): closed now, or when its last reader is done. */
  forget(id: string): void {
    const entry = this.entries.get(id);
    if (entry) this.retire(id, entry);
  }

  /** The packs held open. */
  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Closes every handle not in use; the rest close as they are released. */
  closeAll(): void {
    for (const [id, entry] of this.entries) this.retire(id, entry);
  }

  private async openEntry(id: string): Promise<Entry> {
    const { file, size } = await openSized(this.pathOf(id));
    const entry: Entry = { file, size, readers: 0, retired: false };
    this.entries.set(id, entry);
    this.evict();
    return entry;
  }

  private evict(): void {
    if (this.entries.size <= this.maxOpen) return;
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.maxOpen) return;
      this.retire(id, entry);
    }
  }

  private retire(id: string, entry: Entry): void {
    this.entries.delete(id);
    if (entry.retired) return;
    entry.retired = true;
    if (entry.readers === 0) void entry.file.close().catch(() => undefined);
  }
}
