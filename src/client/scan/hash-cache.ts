import { join } from "node:path";
import { readJsonFile, writePrivateFile } from "../local/config-dir.js";
import { CliError } from "../errors.js";
import type { SiteFile } from "./walk-state.js";

/** size, mtimeMs, inode, hash */
type Entry = [number, number, number, string];

interface CacheFile {
  version: 1;
  entries: Record<string, Entry>;
}

/**
 * A file modified this shortly before the scan is not cached: another change within the same tick
 * of the file system's clock would leave its mtime as it was, unseen (git's "racily clean" files).
 * File systems with whole-second timestamps (ext3, HFS+, FAT's two seconds) get RACY_WINDOW_MS;
 * those with finer ones (ext4, XFS, btrfs, APFS) FINE_RACY_WINDOW_MS, twice the coarsest kernel
 * tick their timestamps are taken from (10 ms at HZ=100), so a deploy run after writing the files
 * still caches them for the very next deploy.
 */
export const RACY_WINDOW_MS = 2000;
export const FINE_RACY_WINDOW_MS = 20;

/** The racy window of a file, from its mtime: a whole second says the file system may count in seconds. */
export function racyWindowMs(mtimeMs: number): number {
  return mtimeMs % 1000 === 0 ? RACY_WINDOW_MS : FINE_RACY_WINDOW_MS;
}

/**
 * True when a file was modified within its racy window of a scan started at `scannedAt`: its stats
 * cannot vouch for its content next time (neither in this cache nor in the last deploy's record).
 */
export function isRacy(file: { mtimeMs: number }, scannedAt: number): boolean {
  return scannedAt - file.mtimeMs < racyWindowMs(file.mtimeMs);
}

/**
 * The hashes of a folder's files from the last deploy, keyed by path and checked against size,
 * mtime and inode, so an unchanged file is not read again. One file per project in the config folder.
 */
export class HashCache {
  private readonly fresh = new Map<string, Entry>();
  /** Whether this run recorded a hash the cache did not hold. */
  private recorded = false;

  private constructor(
    private readonly path: string | undefined,
    private readonly old: Record<string, Entry>,
    private readonly scannedAt: number,
  ) {}

  /**
   * Loads the cache of a folder (by projectHash); an unreadable cache is an empty one. `scannedAt`
   * is when this run started to read the folder (before any stat): files modified within their
   * racy window of it are not recorded.
   */
  static async load(configDir: string, projectHash: string, scannedAt = Date.now()): Promise<HashCache> {
    const path = join(configDir, "hash-cache", `${projectHash}.json`);
    // Unlike the token files, a cache that does not parse is worth nothing: it is started afresh.
    const data = (await readJsonFile(path).catch((error: unknown) => {
      if (error instanceof CliError && error.code === "CONFIG_INVALID") return undefined;
      throw error;
    })) as Partial<CacheFile> | null | undefined;
    const entries = data?.version === 1 && typeof data.entries === "object" ? data.entries : {};
    return new HashCache(path, entries ?? {}, scannedAt);
  }

  /** A cache that remembers nothing and saves nowhere. */
  static empty(): HashCache {
    return new HashCache(undefined, {}, Date.now());
  }

  /** The cached hash of a file when its size, mtime and inode are those recorded. */
  lookup(file: SiteFile): string | undefined {
    const entry = this.old[file.path];
    if (!Array.isArray(entry) || entry.length !== 4) return undefined;
    const [size, mtimeMs, ino, hash] = entry;
    if (size !== file.size || mtimeMs !== file.mtimeMs || ino !== file.ino || typeof hash !== "string") {
      return undefined;
    }
    this.fresh.set(file.path, entry);
    return hash;
  }

  /** Records a file's hash for next time, unless it was modified within its racy window of the scan. */
  record(file: SiteFile, hash: string, scannedAt = this.scannedAt): void {
    if (isRacy(file, scannedAt)) return;
    this.fresh.set(file.path, [file.size, file.mtimeMs, file.ino, hash]);
    this.recorded = true;
  }

  /**
   * Writes the entries of this run only (files gone since are dropped); not at all when they are
   * the cache as it was (every file found in it, none gone): an unchanged redeploy of 50,000 files
   * spent 50 ms and its garbage writing the same 4 MB again.
   */
  async save(): Promise<void> {
    if (this.path === undefined) return;
    if (!this.recorded && this.fresh.size === Object.keys(this.old).length) return;
    const file: CacheFile = { version: 1, entries: Object.fromEntries(this.fresh) };
    await writePrivateFile(this.path, JSON.stringify(file));
  }
}
