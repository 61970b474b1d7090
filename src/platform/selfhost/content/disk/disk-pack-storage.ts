import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { access, open, rename } from "node:fs/promises";
import { join } from "node:path";
import { fileRange } from "../file-range.js";
import { PackHandles } from "../pack-handles.js";
import {
  isPackId,
  PackDamagedError,
  PackMissingError,
  type PackRange,
  type PackStorage,
  type StoredPack,
} from "../pack-storage.js";
import type { PackWriter } from "../pack-writer.js";

const PACK_FILE = /^([0-9a-f]{24})\.pack$/;

/**
 * Packs as files on the local disk, `packs/<id>.pack` under the content directory: made durable by
 * an fdatasync of the file, its rename into place and an fsync of the folder; read through a
 * bounded cache of open files (a deleted pack stays readable through handles opened before).
 */
export class DiskPackStorage implements PackStorage {
  readonly kind = "local";
  private readonly dir: string;
  private readonly handles: PackHandles;

  constructor(contentDir: string) {
    this.dir = join(contentDir, "packs");
    mkdirSync(this.dir, { recursive: true });
    this.handles = new PackHandles((id) => this.pathOf(id));
  }

  /** The file of pack `id`. Only well-formed ids have a path. */
  pathOf(id: string): string {
    if (!isPackId(id)) throw new Error(`not a pack id: ${JSON.stringify(id)}`);
    return join(this.dir, `${id}.pack`);
  }

  async commit(writer: PackWriter): Promise<{ id: string; size: number }> {
    const size = await writer.finish();
    const id = randomBytes(12).toString("hex");
    await rename(writer.temporaryPath, this.pathOf(id));
    await syncDirectory(this.dir);
    return { id, size };
  }

  async openRange(
    id: string,
    start: number,
    length: number,
    packSize: number | undefined,
  ): Promise<PackRange> {
    let handle;
    try {
      handle = await this.handles.acquire(id);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        throw new PackMissingError(`pack ${id} is missing`);
      throw error;
    }
    if (packSize !== handle.size || start + length > handle.size) {
      handle.release();
      throw new PackDamagedError(
        `its pack ${id} holds ${handle.size} bytes, its row says ${packSize ?? "none"}`,
      );
    }
    return fileRange(handle.file, start, length, () => handle.release());
  }

  /** Removes the file before it returns: a pack is gone once `delete` is called. */
  delete(id: string): Promise<void> {
    this.handles.forget(id);
    rmSync(this.pathOf(id), { force: true });
    return Promise.resolve();
  }

  keptPacks(): string[] {
    return this.handles.ids();
  }

  /** Closes its file (once its readers are done), so that a deleted file's space comes back. */
  forget(id: string): void {
    this.handles.forget(id);
  }

  async list(): Promise<StoredPack[]> {
    return readdirSync(this.dir).flatMap((name) => {
      const id = PACK_FILE.exec(name)?.[1];
      if (id === undefined) return [];
      try {
        return [{ id, writtenAt: statSync(join(this.dir, name)).mtimeMs }];
      } catch {
        return []; // deleted meanwhile
      }
    });
  }

  async check(): Promise<void> {
    await access(this.dir);
  }

  async close(): Promise<void> {
    this.handles.closeAll();
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
