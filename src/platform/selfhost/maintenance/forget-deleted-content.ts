import { yieldToEventLoop } from "../../../shared/event-loop.js";
import type { ContentDirectory } from "../content/content-directory.js";
import type { PackStorage } from "../content/pack-storage.js";
import { type PlatformDatabase, slicesOf } from "../state/platform-db.js";

/** Ids asked about in one statement. */
const IDS_PER_STATEMENT = 1_000;

/**
 * Lets go of what this process keeps of packs that are gone from `packs` (ranges on its disk,
 * open files): the process that deleted a pack dropped its own copies, but the edges' were left,
 * across restarts too. A pack id is never reused and a pack is only read once its row exists, so
 * a pack without a row is gone for good. One statement per IDS_PER_STATEMENT kept packs, the
 * event loop let run between them; returns how many packs were let go of.
 */
export async function forgetDeletedPacks(database: PlatformDatabase, storage: PackStorage): Promise<number> {
  let forgotten = 0;
  for (const slice of slicesOf(storage.keptPacks(), IDS_PER_STATEMENT)) {
    const rows = await database.db.selectFrom("packs").select("id").where("id", "in", slice).execute();
    forgotten += forgetAbsent(slice, new Set(rows.map((row) => row.id)), (id) => storage.forget(id));
    await yieldToEventLoop();
  }
  return forgotten;
}

/**
 * Deletes the compressed variants this process made of blobs whose row is gone (another process
 * deleted them), as `forgetDeletedPacks` does for packs. A blob stored again later gets its
 * variants made again; returns how many blobs lost theirs.
 */
export async function forgetDeletedVariants(
  database: PlatformDatabase,
  content: ContentDirectory,
): Promise<number> {
  let forgotten = 0;
  for (const slice of slicesOf(content.variantsMade(), IDS_PER_STATEMENT)) {
    const rows = await database.db.selectFrom("blobs").select("hash").where("hash", "in", slice).execute();
    forgotten += forgetAbsent(slice, new Set(rows.map((row) => row.hash)), (hash) =>
      content.deleteVariants(hash),
    );
    await yieldToEventLoop();
  }
  return forgotten;
}

/** Calls `forget` for each of `ids` not `present`; how many. */
function forgetAbsent(ids: string[], present: Set<string>, forget: (id: string) => void): number {
  let forgotten = 0;
  for (const id of ids) {
    if (present.has(id)) continue;
    forget(id);
    forgotten++;
  }
  return forgotten;
}
