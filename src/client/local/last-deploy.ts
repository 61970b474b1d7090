import { createHash } from "node:crypto";
import { join } from "node:path";
import { MAX_UTF8_PER_UNIT } from "../../core/text.js";
import { isRacy } from "../scan/hash-cache.js";
import type { SiteFile } from "../scan/walk-state.js";
import { CliError } from "../errors.js";
import { readJsonFile, writePrivateFile } from "./config-dir.js";

/** What a folder's last production deploy was made of, as the client saw it. */
export interface LastDeployRecord {
  projectSlug: string;
  /** `statDigest` of the folder's files when they were deployed. */
  statDigest: string;
  /** The manifest digest of that deploy (contract §3), which the server keeps with the revision. */
  manifestDigest: string;
  /** How many distinct contents those files had, for the summary. */
  distinctHashes: number;
}

interface RecordFile extends LastDeployRecord {
  version: 1;
}

/** Bytes of stat lines hashed at a time. */
const DIGEST_CHUNK = 64 * 1024;
/** The bytes after a path: NUL and 3 doubles. */
const AFTER_PATH = 1 + 3 * 8;

/**
 * One SHA-256 over every file's path, size, mtime and inode, in path order: the same digest as at
 * the last deploy means every file would have been a hash-cache hit and no file came or went, so
 * the manifest is the one deployed then, and the client need not read the hash cache nor send it.
 * Each file is its path's UTF-8, a NUL (which no path holds) and the three numbers as
 * little-endian doubles, gathered into chunks: as text, turning 50,000 fractional mtimes into
 * decimals and hashing a line a call took twice as long.
 */
export function statDigest(files: readonly SiteFile[]): string {
  const hash = createHash("sha256");
  const chunk = Buffer.allocUnsafe(DIGEST_CHUNK);
  // Doubles through a view: Buffer's writeDoubleLE copies each one byte by byte.
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  let used = 0;
  for (const file of files) {
    const room = file.path.length * MAX_UTF8_PER_UNIT + AFTER_PATH;
    if (used + room > DIGEST_CHUNK) {
      hash.update(chunk.subarray(0, used));
      used = 0;
    }
    if (room > DIGEST_CHUNK) hash.update(file.path, "utf8");
    else used += chunk.write(file.path, used, "utf8");
    chunk[used] = 0;
    view.setFloat64(used + 1, file.size, true);
    view.setFloat64(used + 9, file.mtimeMs, true);
    view.setFloat64(used + 17, file.ino, true);
    used += AFTER_PATH;
  }
  hash.update(chunk.subarray(0, used));
  return hash.digest("hex");
}

/**
 * True when no file was modified within its racy window of the scan (see hash-cache.ts): only then
 * may the stats stand for the content next time, as the hash cache's entries do.
 */
export function statsSettled(files: readonly SiteFile[], scannedAt: number): boolean {
  return !files.some((file) => isRacy(file, scannedAt));
}

const fileOf = (configDir: string, projectHash: string) =>
  join(configDir, "hash-cache", `${projectHash}.last.json`);

/** The record of a folder's last production deploy (by projectHash), when there is a usable one. */
export async function loadLastDeploy(
  configDir: string,
  projectHash: string,
): Promise<LastDeployRecord | undefined> {
  // Like the hash cache, a record that does not parse is worth nothing: the deploy goes the long way.
  const data = (await readJsonFile(fileOf(configDir, projectHash)).catch((error: unknown) => {
    if (error instanceof CliError && error.code === "CONFIG_INVALID") return undefined;
    throw error;
  })) as Partial<RecordFile> | null | undefined;
  if (data?.version !== 1) return undefined;
  const { projectSlug, statDigest, manifestDigest, distinctHashes } = data;
  if (typeof projectSlug !== "string" || typeof statDigest !== "string") return undefined;
  if (typeof manifestDigest !== "string" || typeof distinctHashes !== "number") return undefined;
  return { projectSlug, statDigest, manifestDigest, distinctHashes };
}

/** Records a folder's production deploy for the next run. */
export async function saveLastDeploy(
  configDir: string,
  projectHash: string,
  record: LastDeployRecord,
): Promise<void> {
  const file: RecordFile = { version: 1, ...record };
  await writePrivateFile(fileOf(configDir, projectHash), JSON.stringify(file));
}
