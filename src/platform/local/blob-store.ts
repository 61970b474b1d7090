import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ASSET_HASH } from "../../core/formats.js";

/**
 * Content by hash, as immutable files on disk: `<dir>/<first two hex>/<hash>`. A blob is written
 * to a temporary file, fsynced and renamed into place, so a reader never sees a partial blob and
 * a crash leaves at most a stray temporary file. The row that names a blob is written after it.
 */
export class BlobStore {
  private readonly blobsDir: string;
  private readonly tmpDir: string;

  constructor(dir: string) {
    this.blobsDir = join(dir, "blobs");
    this.tmpDir = join(dir, "tmp");
    mkdirSync(this.blobsDir, { recursive: true });
    // Temporary files from a crashed run are never named by a row: clear them at start.
    rmSync(this.tmpDir, { recursive: true, force: true });
    mkdirSync(this.tmpDir, { recursive: true });
  }

  /** Where the blob of `hash` lives. Only well-formed hashes have a path, so no URL reaches outside. */
  pathOf(hash: string): string {
    if (!ASSET_HASH.test(hash)) throw new Error(`not an asset hash: ${JSON.stringify(hash)}`);
    return join(this.blobsDir, hash.slice(0, 2), hash);
  }

  /** A fresh path for a temporary file, to be committed or discarded. */
  temporaryPath(): string {
    return join(this.tmpDir, randomBytes(12).toString("hex"));
  }

  /** Makes a finished temporary file durable and moves it into place as `hash`. */
  commit(temporaryPath: string, hash: string): void {
    const fd = openSync(temporaryPath, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const target = this.pathOf(hash);
    mkdirSync(join(this.blobsDir, hash.slice(0, 2)), { recursive: true });
    renameSync(temporaryPath, target);
  }

  /**
   * Makes the renames of these blobs durable: fsyncs each directory they went into (and the top
   * directory, which may have gained a new one). Called before the rows that name them are written.
   */
  syncDirectories(hashes: string[]): void {
    if (hashes.length === 0) return;
    const dirs = new Set(hashes.map((hash) => join(this.blobsDir, hash.slice(0, 2))));
    for (const dir of [...dirs, this.blobsDir]) {
      const fd = openSync(dir, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }

  /** Removes a temporary file that will not be committed. */
  discard(temporaryPath: string): void {
    rmSync(temporaryPath, { force: true });
  }

  /** Every blob file present, by hash. */
  *hashes(): Generator<string> {
    for (const prefix of readdirSync(this.blobsDir)) {
      for (const name of readdirSync(join(this.blobsDir, prefix))) if (ASSET_HASH.test(name)) yield name;
    }
  }

  /** Deletes a blob; its row must be gone first. */
  delete(hash: string): void {
    rmSync(this.pathOf(hash), { force: true });
  }
}
