import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import {
  PackDamagedError,
  PackMissingError,
  type PackRange,
  type PackStorage,
  type StoredPack,
} from "../pack-storage.js";
import type { PackWriter } from "../pack-writer.js";

/** Packs in this process's memory, gone when it ends (THROWAWAY: following the recipe). */
export class MemoryPackStorage implements PackStorage {
  readonly kind = "local";
  private readonly packs = new Map<string, { bytes: Buffer; writtenAt: number }>();

  async commit(writer: PackWriter): Promise<{ id: string; size: number }> {
    const size = await writer.finish();
    const bytes = await readFile(writer.temporaryPath);
    rmSync(writer.temporaryPath, { force: true });
    const id = randomBytes(12).toString("hex");
    this.packs.set(id, { bytes, writtenAt: Date.now() });
    return { id, size };
  }

  async openRange(
    id: string,
    start: number,
    length: number,
    packSize: number | undefined,
  ): Promise<PackRange> {
    const pack = this.packs.get(id);
    if (!pack) throw new PackMissingError(`pack ${id} is missing`);
    if (packSize !== pack.bytes.length || start + length > pack.bytes.length) {
      throw new PackDamagedError(
        `its pack ${id} holds ${pack.bytes.length} bytes, its row says ${packSize ?? "none"}`,
      );
    }
    const range = pack.bytes.subarray(start, start + length);
    return {
      stream: (from, to) => Readable.from(to < from ? [] : [range.subarray(from, to + 1)]),
      readAll: async () => Buffer.from(range),
      close: () => undefined,
    };
  }

  async delete(id: string): Promise<void> {
    this.packs.delete(id);
  }

  async list(): Promise<StoredPack[]> {
    return [...this.packs].map(([id, { writtenAt }]) => ({ id, writtenAt }));
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {}
}
