import { join } from "node:path";
import { readJsonFile, writePrivateFile } from "../local/config-dir.js";
import { CliError } from "../errors.js";
import type { SiteFile } from "./walk.js";

/** size, mtimeMs, inode, hash */
type Entry = [number, number, number, string];

interface CacheFile {
  version: 1;
  entries: Record<string, Entry>;
}

/** Files modified this recently are not cached: a change within the clock's tick could go unseen. */
export const RACY_WINDOW_MS = 2000;

/**
 * The hashes of a folder's files from the last deploy, keyed by path and checked against size,
 * mtime and inode, so an unchanged file is not read again. One file per project in the config folder.
 */
export class HashCache {
  private readonly fresh = new Map<string, Entry>();

  private constructor(
    private readonly path: string | undefined,
    private readonly old: Record<string, Entry>,
  ) {}

  /** Loads the cache of a folder (by projectHash); an unreadable cache is an empty one. */
  static async load(configDir: string, projectHash: string): Promise<HashCache> {
    const path = join(configDir, "hash-cache", `${projectHash}.json`);
    // Unlike the token files, a cache that does not parse is worth nothing: it is started afresh.
    const data = (await readJsonFile(path).catch((error: unknown) => {
      if (error instanceof CliError && error.code === "CONFIG_INVALID") return undefined;
      throw error;
    })) as Partial<CacheFile> | null | undefined;
    const entries = data?.version === 1 && typeof data.entries === "object" ? data.entries : {};
    return new HashCache(path, entries ?? {});
  }

  /** A cache that remembers nothing and saves nowhere. */
  static empty(): HashCache {
    return new HashCache(undefined, {});
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

  /** Records a file's hash for next time, unless it was modified within the racy window. */
  record(file: SiteFile, hash: string, now = Date.now()): void {
    if (now - file.mtimeMs < RACY_WINDOW_MS) return;
    this.fresh.set(file.path, [file.size, file.mtimeMs, file.ino, hash]);
  }

  /** Writes the entries of this run only (files gone since are dropped). */
  async save(): Promise<void> {
    if (this.path === undefined) return;
    const file: CacheFile = { version: 1, entries: Object.fromEntries(this.fresh) };
    await writePrivateFile(this.path, JSON.stringify(file));
  }
}
