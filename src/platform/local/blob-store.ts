import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { mkdir, open, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ASSET_HASH } from "../../core/formats.js";

/**
 * Content by hash, as immutable files on disk: `<dir>/<first two hex>/<hash>`. A blob is written
 * to a temporary file, fsynced and renamed into place, so a reader never sees a partial blob and
 * a crash leaves at most a stray temporary file. The row that names a blob is written after it.
 */
export class BlobStore {
  private readonly blobsDir: string;
  private readonly tmpDir: string;
  private readonly variantsDir: string;

  constructor(dir: string) {
    this.blobsDir = join(dir, "blobs");
    this.tmpDir = join(dir, "tmp");
    this.variantsDir = join(dir, "variants");
    mkdirSync(this.blobsDir, { recursive: true });
    // Temporary files from a crashed run are never named by a row: clear them at start. So are
    // compressed variants (a cache, made again on demand): none can outlive its blob this way.
    rmSync(this.tmpDir, { recursive: true, force: true });
    rmSync(this.variantsDir, { recursive: true, force: true });
    mkdirSync(this.tmpDir, { recursive: true });
  }

  /** Where the blob of `hash` lives. Only well-formed hashes have a path, so no URL reaches outside. */
  pathOf(hash: string): string {
    if (!ASSET_HASH.test(hash)) throw new Error(`not an asset hash: ${JSON.stringify(hash)}`);
    return join(this.blobsDir, hash.slice(0, 2), hash);
  }

  /**
   * Where the compressed variant of a blob lives once made (`<dir>/variants/<two hex>/<hash>.br`
   * or `.gz`): the edge makes it on the first request that asks for it and sends it from there.
   */
  variantPath(hash: string, coding: "br" | "gzip"): string {
    if (!ASSET_HASH.test(hash)) throw new Error(`not an asset hash: ${JSON.stringify(hash)}`);
    return join(this.variantsDir, hash.slice(0, 2), `${hash}.${coding === "br" ? "br" : "gz"}`);
  }

  /**
   * Makes a variant: `write` fills a temporary file, which is then renamed into place, so a reader
   * never sees half of one. Not synced: variants are a cache, cleared at every start.
   */
  async storeVariant(
    hash: string,
    coding: "br" | "gzip",
    write: (temporaryPath: string) => Promise<void>,
  ): Promise<void> {
    const target = this.variantPath(hash, coding);
    const temporary = this.temporaryPath();
    try {
      await write(temporary);
      await mkdir(dirname(target), { recursive: true });
      await rename(temporary, target);
    } catch (error) {
      this.discard(temporary);
      throw error;
    }
  }

  /** A fresh path for a temporary file, to be stored or discarded. */
  temporaryPath(): string {
    return join(this.tmpDir, randomBytes(12).toString("hex"));
  }

  /**
   * Makes a blob durable and moves it into place as `hash`: bytes held in memory are written to
   * `temporaryPath` first; either way the file is fdatasynced, then renamed. Runs on libuv's thread
   * pool, so many blobs are synced in parallel and the event loop never waits on the disk.
   */
  async store(
    source: { inMemory: Buffer } | { inFile: string },
    temporaryPath: string,
    hash: string,
  ): Promise<void> {
    const target = this.pathOf(hash);
    const file = await open(temporaryPath, "inMemory" in source ? "wx" : "r");
    try {
      if ("inMemory" in source) await file.writeFile(source.inMemory);
      await file.datasync();
    } finally {
      await file.close();
    }
    await mkdir(dirname(target), { recursive: true });
    await rename(temporaryPath, target);
  }

  /**
   * Makes the renames of these blobs durable: fsyncs each directory they went into (and the top
   * directory, which may have gained a new one). Called before the rows that name them are written.
   */
  async syncDirectories(hashes: string[]): Promise<void> {
    if (hashes.length === 0) return;
    const dirs = new Set(hashes.map((hash) => dirname(this.pathOf(hash))));
    await Promise.all(
      [...dirs, this.blobsDir].map(async (dir) => {
        const handle = await open(dir, "r");
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      }),
    );
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

  /** Deletes a blob, and its compressed variants; its row must be gone first. */
  delete(hash: string): void {
    rmSync(this.pathOf(hash), { force: true });
    rmSync(this.variantPath(hash, "br"), { force: true });
    rmSync(this.variantPath(hash, "gzip"), { force: true });
  }
}
