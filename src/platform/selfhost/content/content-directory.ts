import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ASSET_HASH } from "../../../core/formats.js";
import { PackWriter } from "./pack-writer.js";

/**
 * The content files of the self-hosted platform, under one directory (packs themselves are kept by
 * a `PackStorage`: `packs/` here, or an object store):
 * - `blobs/<two hex>/<hash>`: content stored one file a blob before packs (read until compaction
 *   moves it into a pack);
 * - `variants/`: compressed forms the edge made (a cache, cleared at start);
 * - `tmp/`: files being written (cleared at start: no row ever names one).
 * A crash leaves at most files no row names, which the next start removes.
 */
export class ContentDirectory {
  private readonly looseDir: string;
  private readonly tmpDir: string;
  private readonly variantsDir: string;
  // The blobs this process made variants of (the folder starts empty), to check they still exist.
  private readonly variantHashes = new Set<string>();

  constructor(readonly dir: string) {
    this.looseDir = join(dir, "blobs");
    this.tmpDir = join(dir, "tmp");
    this.variantsDir = join(dir, "variants");
    rmSync(this.tmpDir, { recursive: true, force: true });
    rmSync(this.variantsDir, { recursive: true, force: true });
    mkdirSync(this.tmpDir, { recursive: true });
  }

  /** Starts a pack in a temporary file (a `PackStorage` commits it). */
  newWriter(): PackWriter {
    return new PackWriter(this.temporaryPath());
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
    this.variantHashes.delete(hash);
  }

  /** The blobs this process made variants of and has not deleted them since. */
  variantsMade(): string[] {
    return [...this.variantHashes];
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
      this.variantHashes.add(hash);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }

  private temporaryPath(): string {
    return join(this.tmpDir, randomBytes(12).toString("hex"));
  }
}
