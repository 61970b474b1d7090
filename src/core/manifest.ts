import { InvalidManifestError } from "./errors.js";
import { ASSET_HASH, CONTROL_CHARACTER } from "./formats.js";
import { quoteForMessage } from "./text.js";

/** One asset of a deploy: its path inside the site (starting with `/`), hash and size. */
export interface ManifestEntry {
  path: string;
  hash: string;
  size: number;
}

/** Orders entries by path as JavaScript compares strings (a manifest's path order: its digest's, its rows'). */
export function comparePaths(a: ManifestEntry, b: ManifestEntry): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

export interface ManifestLimits {
  maxAssets: number;
  maxAssetBytes: number;
  /** Bytes of UTF-8 all the manifest's paths may take together (MAX_MANIFEST_BYTES). */
  maxManifestBytes: number;
}

/**
 * Bytes of UTF-8 one manifest path may take (its `/` included, not the slug): far more than any
 * site needs, and it keeps every path under PostgreSQL's limit for an index entry (about 2.7 KB)
 * and within the longest key S3 allows (1,024 bytes). A 30 MiB path was accepted before (issue 31).
 */
export const MAX_PATH_BYTES = 1024;

/**
 * Checks a prepare manifest against contract §2 and returns its entries with paths relative to the
 * site. Keys are `/` + slug + `/` + path; no empty, `.` or `..` segment, no backslash, no control
 * character. Throws INVALID_MANIFEST naming the offending key.
 */
export function parseManifest(manifest: unknown, slug: string, limits: ManifestLimits): ManifestEntry[] {
  const keys = manifestKeys(manifest, limits);
  const total = new PathBytes(limits.maxManifestBytes);
  const prefix = `/${slug}/`;
  return keys.map((key) => checkEntry(manifest as Record<string, unknown>, key, prefix, limits, total));
}

/**
 * `parseManifest` for the service: the same checks and result, with `pause` awaited between slices
 * of about `sliceMs`, so a manifest of 100,000 entries never holds the thread the edge and the
 * upload service share for long (issue 14).
 */
export async function parseManifestSliced(
  manifest: unknown,
  slug: string,
  limits: ManifestLimits,
  pause: { due(): boolean; next(): Promise<void> },
): Promise<ManifestEntry[]> {
  const keys = manifestKeys(manifest, limits);
  // Parsing the body that holds a large manifest took a slice already.
  if (keys.length > 256) await pause.next();
  const entries: ManifestEntry[] = [];
  const total = new PathBytes(limits.maxManifestBytes);
  const prefix = `/${slug}/`;
  for (let i = 0; i < keys.length; i++) {
    // Checked every 256 entries: reading the time costs more than checking one entry.
    if ((i & 255) === 255 && pause.due()) await pause.next();
    entries.push(checkEntry(manifest as Record<string, unknown>, keys[i]!, prefix, limits, total));
  }
  return entries;
}

function manifestKeys(manifest: unknown, limits: ManifestLimits): string[] {
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) {
    throw new InvalidManifestError("manifest must be an object of asset paths");
  }
  const keys = Object.keys(manifest);
  if (keys.length > limits.maxAssets) {
    throw new InvalidManifestError(`manifest has ${keys.length} assets; the limit is ${limits.maxAssets}`);
  }
  return keys;
}

/** Adds up the UTF-8 bytes of a manifest's paths, refusing the one that takes them past `max`. */
class PathBytes {
  private total = 0;
  constructor(private readonly max: number) {}

  add(bytes: number): void {
    this.total += bytes;
    if (this.total > this.max) {
      throw new InvalidManifestError(
        `manifest paths take more than ${this.max} bytes of UTF-8 together; the limit is ${this.max} (MAX_MANIFEST_BYTES)`,
      );
    }
  }
}

/** One entry checked: `prefix` is `/` + slug + `/` (made once a manifest, not once a key). */
function checkEntry(
  manifest: Record<string, unknown>,
  key: string,
  prefix: string,
  limits: ManifestLimits,
  total: PathBytes,
): ManifestEntry {
  if (!key.startsWith(prefix)) {
    throw new InvalidManifestError(`manifest key "${quoteForMessage(key)}" must start with "${prefix}"`);
  }
  const path = key.slice(prefix.length - 1);
  // Before any other look at it: a path of 30 MiB costs nothing more than its length.
  const bytes = pathBytes(path);
  if (bytes > MAX_PATH_BYTES) {
    throw new InvalidManifestError(
      `manifest key "${quoteForMessage(key)}" has a path of more than ${MAX_PATH_BYTES} bytes of UTF-8; the limit is ${MAX_PATH_BYTES} bytes`,
    );
  }
  total.add(bytes);
  checkPath(key, path);
  const value = manifest[key];
  checkValue(key, value, limits);
  // One object an entry (a spread of the value's fields made two: 100,000 more in a large prepare).
  const { hash, size } = value as { hash: string; size: number };
  return { path, hash, size };
}

/** Bytes of `path` in UTF-8, or MAX_PATH_BYTES + 1 once it is surely longer (not counted further). */
function pathBytes(path: string): number {
  // A UTF-16 code unit is at least one byte of UTF-8.
  if (path.length > MAX_PATH_BYTES) return MAX_PATH_BYTES + 1;
  return Buffer.byteLength(path, "utf8");
}

const BAD_SEGMENT = /\/\.{0,2}(?:\/|$)/;

function checkPath(key: string, path: string): void {
  if (path.includes("\\") || CONTROL_CHARACTER.test(path)) {
    throw new InvalidManifestError(
      `manifest key "${quoteForMessage(key)}" holds a backslash or a control character`,
    );
  }
  // `path` starts with `/`: a segment is empty, `.` or `..` where a `/` is followed by at most two
  // dots and then a `/` or the end (one test, not an array of its segments).
  if (BAD_SEGMENT.test(path)) {
    throw new InvalidManifestError(
      `manifest key "${quoteForMessage(key)}" has an empty, "." or ".." segment`,
    );
  }
}

function checkValue(key: string, value: unknown, limits: ManifestLimits): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidManifestError(`manifest["${quoteForMessage(key)}"] must be an object { hash, size }`);
  }
  const { hash, size } = value as Record<string, unknown>;
  if (typeof hash !== "string" || !ASSET_HASH.test(hash)) {
    throw new InvalidManifestError(
      `manifest["${quoteForMessage(key)}"].hash must be 32 lowercase hex characters`,
    );
  }
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0) {
    throw new InvalidManifestError(`manifest["${quoteForMessage(key)}"].size must be a non-negative integer`);
  }
  if (size > limits.maxAssetBytes) {
    throw new InvalidManifestError(
      `manifest["${quoteForMessage(key)}"] is ${size} bytes; the limit is ${limits.maxAssetBytes} bytes per asset`,
    );
  }
}
