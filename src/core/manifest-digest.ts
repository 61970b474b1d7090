import { createHash } from "node:crypto";
import type { ManifestEntry } from "./manifest.js";

/**
 * One SHA-256 over a manifest's entries in path order (path, hash and size of each): two manifests
 * have the same digest exactly when they name the same files with the same content, whatever order
 * the client listed them in.
 */
export function manifestDigest(entries: readonly ManifestEntry[]): string {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = createHash("sha256");
  // NUL cannot occur in a path or a hash (the manifest's rules refuse it), so fields never run together.
  for (const entry of sorted) hash.update(`${entry.path}\0${entry.hash}\0${entry.size}\n`);
  return hash.digest("hex");
}
