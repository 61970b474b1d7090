import { yieldToEventLoop } from "../../../shared/event-loop.js";
import type { PackStorage } from "../content/pack-storage.js";
import { type PlatformDatabase, slicesOf } from "../state/platform-db.js";

/** Pack ids asked about in one statement. */
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
    const present = new Set(rows.map((row) => row.id));
    for (const id of slice) {
      if (present.has(id)) continue;
      storage.forget(id);
      forgotten++;
    }
    await yieldToEventLoop();
  }
  return forgotten;
}
