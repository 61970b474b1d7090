import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { mkdir, open, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ASSET_HASH } from "../../core/formats.js";
import { PackWriter } from "./pack-writer.js";

const PACK_ID = /^[0-9a-f]{24}$/;
const PACK_FILE = /^([0-9a-f]{24})\.pack$/;

/**
 * The content files of the local platform, under one directory:
 * - `packs/<id>.pack`: blobs a bucket at a time, immutable once renamed into place;
 * - `blobs/<two hex>/<hash>`: content stored one file a blob before packs (read until compaction
 *   moves it into a pack);
 * - `variants/`: compressed forms the edge made (a cache, cleared at start);
 * - `tmp/`: files being written (cleared at start: no row ever names one).
 * A pack is durable (fdatasync, rename, directory fsync) before a row names it, and its row goes
 * before its file, so a crash leaves at most files no row names, which the next start removes.
 */
export class PackStore {
  private readonly packsDir: string;
  private readonly looseDir: string;
  private readonly tmpDir: string;
  private readonly variantsDir: string;

  constructor(readonly dir: string) {
    this.packsDir = join(dir, "packs");
    this.looseDir = join(dir, "blobs");
    this.tmpDir = join(dir, "tmp");
    this.variantsDir = join(dir, "variants");
    mkdirSync(this.packsDir, { recursive: true });
    rmSync(this.tmpDir, { recursive: true, force: true });
    rmSync(this.variantsDir, { recursive: true, force: true });
    mkdirSync(this.tmpDir, { recursive: true });
  }

  /** Starts a pack in a temporary file. */
  newWriter(): PackWriter {
    return new PackWriter(this.temporaryPath());
  }

  /**
   * Makes a finished writer's file a pack: fdatasync, rename to `packs/<id>.pack`, fsync the
   * directory. Returns its id and size; only then may rows name it.
   */
  async commit(writer: PackWriter): Promise<{ id: string; size: number }> {
    const size = await writer.finish();
    const id = randomBytes(12).toString("hex");
    await rename(writer.temporaryPath, this.packPath(id));
    await syncDirectory(this.packsDir);
    return { id, size };
  }

  /** The file of pack `id`. Only well-formed ids have a path. */
  packPath(id: string): string {
    if (!PACK_ID.test(id)) throw new Error(`not a pack id: ${JSON.stringify(id)}`);
    return join(this.packsDir, `${id}.pack`);
  }

  /** Every pack file present, by id. */
  packIds(): string[] {
    return readdirSync(this.packsDir).flatMap((name) => PACK_FILE.exec(name)?.[1] ?? []);
  }

  /** Deletes a pack's file; no row may name it any more. */
  deletePack(id: string): void {
    rmSync(this.packPath(id), { force: true });
  }

  /** The file of a blob stored before packs. Only well-formed hashes have a path. */
  loosePath(hash: string): string {
    if (!ASSET_HASH.test(hash)) throw new Error(`not an asset hash: ${JSON.stringify(hash)}`);
    return join(this.looseDir, hash.slice(0, 2), hash);
  }

  /** Every blob file stored before packs, by hash. */
  *looseHashes(): Generator<string> {
    if (!existsSync(this.looseDir)) return;
    for (const prefix of readdirSync(this.looseDir)) {
      for (const name of readdirSync(join(this.looseDir, prefix))) if (ASSET_HASH.test(name)) yield name;
    }
  }

  /** Deletes a blob file stored before packs; its row must be gone or point at a pack. */
  deleteLoose(hash: string): void {
    rmSync(this.loosePath(hash), { force: true });
  }

  /** Deletes the compressed variants made of a blob, once no row names it. */
  deleteVariants(hash: string): void {
    rmSync(this.variantPath(hash, "br"), { force: true });
    rmSync(this.variantPath(hash, "gzip"), { force: true });
  }

  /**
   * Where the compressed variant of a blob lives once made (`variants/<two hex>/<hash>.br` or
   * `.gz`): the edge makes it on the first request that asks for it and sends it from there.
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
      rmSync(temporary, { force: true });
      throw error;
    }
  }

  private temporaryPath(): string {
    return join(this.tmpDir, randomBytes(12).toString("hex"));
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
