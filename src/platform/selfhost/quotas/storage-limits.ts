import { statfs } from "node:fs/promises";
import { MIB } from "../../../core/formats.js";

/** How much the local platform lets clients store (0 means no limit), and how it learns free space. */
export interface StorageLimits {
  /** PROJECT_QUOTA_BYTES: distinct content across a project's kept revisions and a new manifest. */
  projectQuotaBytes: number;
  /** PENDING_QUOTA_BYTES: bytes prepared from one client address and not deployed yet. */
  pendingQuotaBytes: number;
  /** CLIENT_QUOTA_BYTES: what the projects one client address created within the window keep. */
  clientQuotaBytes?: number;
  /** CLIENT_QUOTA_WINDOW_SECONDS: how recently created a project counts for its client. */
  clientQuotaWindowSeconds?: number;
  /**
   * The size above which the edge keeps a compressible file's variants on disk (those smaller live
   * in its memory cache): such a file's variants count in the quotas. Default 0: every file's.
   */
  diskVariantsAbove?: number;
  /** MIN_FREE_BYTES: below this much free space, uploads are refused (507). */
  minFreeBytes: number;
  /** Free bytes on the file system that holds the blobs. */
  freeBytes: () => Promise<number>;
}

/** No quota and no free-space guard. */
export const UNLIMITED: StorageLimits = {
  projectQuotaBytes: 0,
  pendingQuotaBytes: 0,
  minFreeBytes: 0,
  freeBytes: async () => Number.MAX_SAFE_INTEGER,
};

/** Free bytes on the file system holding `dir`, as an unprivileged process may use them. */
export function freeBytesOf(dir: string): () => Promise<number> {
  return async () => {
    const stats = await statfs(dir);
    return stats.bavail * stats.bsize;
  };
}

/** True once storing `incoming` more bytes would leave less than MIN_FREE_BYTES free. */
export async function lacksRoomFor(
  limits: Pick<StorageLimits, "minFreeBytes" | "freeBytes">,
  incoming: number,
): Promise<boolean> {
  if (limits.minFreeBytes <= 0) return false;
  return (await limits.freeBytes()) - incoming < limits.minFreeBytes;
}

export { isOutOfSpace } from "../../../shared/out-of-space.js";

/** Bytes for a message: exact, and in MiB. */
export function describeBytes(bytes: number): string {
  return `${bytes} bytes (${(bytes / MIB).toFixed(1)} MiB)`;
}
