import type { PlatformDatabase } from "../state/platform-db.js";
import type { ContentFiles } from "./garbage-collector.js";

/**
 * Deletes content no row names: what a crash between writing a pack and its rows, or between
 * removing rows and their file, left behind. Packs written at or after `writtenBefore` are kept:
 * a writer may be between storing one and recording it (run at start, before any upload, with
 * Infinity, when no other process writes to the same packs).
 */
export async function removeOrphanFiles(
  database: PlatformDatabase,
  files: ContentFiles,
  writtenBefore = Number.POSITIVE_INFINITY,
): Promise<number> {
  const { db } = database;
  const { packs, storage } = files;
  let removed = 0;
  for (const pack of await storage.list()) {
    if (
      pack.writtenAt < writtenBefore &&
      (await db.selectFrom("packs").select("id").where("id", "=", pack.id).executeTakeFirst()) === undefined
    ) {
      await storage.delete(pack.id);
      removed++;
    }
  }
  for (const hash of packs.looseHashes()) {
    const known = await db
      .selectFrom("blobs")
      .select("hash")
      .where("hash", "=", hash)
      .where("pack", "is", null)
      .executeTakeFirst();
    if (known === undefined) {
      packs.deleteLoose(hash);
      removed++;
    }
  }
  return removed;
}
