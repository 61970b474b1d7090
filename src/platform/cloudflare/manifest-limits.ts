import { InvalidManifestError } from "../../core/errors.js";
import type { ManifestEntry } from "../../core/manifest.js";
import { CLOUDFLARE_LIMITS } from "./settings.js";

/** Cloudflare's limits on one Worker version's assets, checked before Cloudflare is asked. */
export function checkLimits(entries: ManifestEntry[]): void {
  const { maxFiles, maxFileBytes } = CLOUDFLARE_LIMITS;
  if (entries.length > maxFiles) {
    throw new InvalidManifestError(
      `manifest has ${entries.length} assets; Cloudflare's limit is ${maxFiles} files per Worker version`,
    );
  }
  const large = entries.find((e) => e.size > maxFileBytes);
  if (large !== undefined) {
    throw new InvalidManifestError(
      `${large.path} is ${large.size} bytes; Cloudflare's limit is ${maxFileBytes} bytes (25 MiB) per file`,
    );
  }
}
