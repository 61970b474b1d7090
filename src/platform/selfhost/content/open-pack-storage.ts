import { join } from "node:path";
import { DiskRangeCache } from "./disk-range-cache.js";
import { DiskPackStorage } from "./disk/disk-pack-storage.js";
import type { S3Settings } from "./s3/s3-settings.js";
import type { PackStorage } from "./pack-storage.js";

/**
 * How long a pack in an object store may go unnamed by any row before the orphan sweep deletes it:
 * another process may be between storing a pack and recording it (minutes at most).
 */
export const OBJECT_STORE_ORPHAN_GRACE_MS = 60 * 60 * 1000;

/**
 * The blocks a short range of a pack in an object store is read in: a cold page's files, stored
 * side by side in their bucket's pack, come in a request or two rather than one each. At most a
 * sixteenth of the disk cache, so a small cache is not filled by a few reads ahead.
 */
const READ_AHEAD_BYTES = 1024 * 1024;

/**
 * Where the packs under content directory `dir` are kept: in the object store when one is given
 * (ranges read from it kept in `dir/range-cache/`), else as files in `dir/packs/`. `shared` says
 * whether other processes write to the same packs (then orphans are swept only once old). The
 * AWS SDK is loaded only then: it costs a server that does not use it ~20 MB of memory.
 */
export async function openPackStorage(
  dir: string,
  objectStore: S3Settings | undefined,
): Promise<{ storage: PackStorage; shared: boolean }> {
  if (!objectStore) return { storage: new DiskPackStorage(dir), shared: false };
  const { S3PackStorage } = await import("./s3/s3-pack-storage.js");
  const { createS3Client } = await import("./s3/s3-client.js");
  return {
    storage: new S3PackStorage({
      client: createS3Client(objectStore),
      location: objectStore.location,
      cache: new DiskRangeCache(join(dir, "range-cache"), objectStore.diskCacheBytes),
      timeoutMs: objectStore.timeoutMs,
      readAheadBytes: Math.min(READ_AHEAD_BYTES, Math.floor(objectStore.diskCacheBytes / 16)),
    }),
    shared: true,
  };
}
