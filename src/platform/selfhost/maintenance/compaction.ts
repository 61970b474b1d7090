import { sql } from "kysely";
import type { BlobReader } from "../content/blob-reader.js";
import { deleteEmptyPacks, type ContentFiles } from "./garbage-collector.js";
import { firstOf, type PlatformDatabase } from "../state/platform-db.js";

/**
 * A pack is compacted once less than this share of its bytes is still named by a blob row: then
 * dead bytes never exceed live ones, so the content on disk stays under twice what is live.
 */
const COMPACT_BELOW_LIVE_SHARE = 0.5;
/** Blobs stored before packs moved into one pack per step, at most (and at most PACK_BYTES). */
const LOOSE_PER_STEP = 2_000;
const PACK_BYTES = 64 * 1024 * 1024;

/** What one compaction step did. */
export interface CompactionResult {
  packsRemoved: number;
  /** Dead bytes given back to the disk. */
  bytesFreed: number;
  /** Blobs copied into a new pack. */
  blobsMoved: number;
}

interface LiveBlob {
  hash: string;
  size: number;
  pack_offset: number | null;
}

/** Rows as numbers (PostgreSQL answers BIGINT columns as strings). */
function liveBlobs(rows: LiveBlob[]): LiveBlob[] {
  return rows.map((row) => ({
    hash: row.hash,
    size: Number(row.size),
    pack_offset: row.pack_offset === null ? null : Number(row.pack_offset),
  }));
}

/**
 * One step of compaction, or undefined when there is nothing to do. Takes the pack with the
 * smallest share of live bytes under COMPACT_BELOW_LIVE_SHARE (else a batch of blobs stored one
 * file each before packs), copies its live blobs into a new pack made durable first, then in one
 * transaction points their rows at the new pack and deletes the old pack's row, and only then
 * deletes the old file. A crash at any point leaves either the old rows (and an orphan new pack)
 * or the new rows (and an orphan old pack): the next start removes the orphan.
 */
export async function compactStep(
  database: PlatformDatabase,
  files: ContentFiles,
  reader: BlobReader,
  now: number,
): Promise<CompactionResult | undefined> {
  const { db } = database;
  // The share is computed in floating point on both engines (an integer division would be 0).
  const found = await firstOf(
    db,
    sql<{ id: string; size: number | string }>`SELECT id, size FROM packs
      WHERE live_bytes < size * ${sql.lit(COMPACT_BELOW_LIVE_SHARE)}
      ORDER BY CAST(live_bytes AS REAL) / (CASE WHEN size > 1 THEN size ELSE 1 END) LIMIT 1`,
  );
  if (found) {
    const pack = { id: found.id, size: Number(found.size) };
    const live = liveBlobs(
      await db
        .selectFrom("blobs")
        .select(["hash", "size", "pack_offset"])
        .where("pack", "=", pack.id)
        .where("damaged", "=", 0)
        .orderBy("pack_offset")
        .execute(),
    );
    const moved = await moveInto(database, files, reader, live, pack.id, now);
    await database.transaction(async (trx) => {
      // Rows left naming it are damaged ones: they now name no bytes at all.
      await trx
        .updateTable("blobs")
        .set({ pack: null, pack_offset: null })
        .where("pack", "=", pack.id)
        .execute();
      await trx.deleteFrom("packs").where("id", "=", pack.id).execute();
    });
    await files.storage.delete(pack.id);
    return { packsRemoved: 1, bytesFreed: pack.size - moved.bytes, blobsMoved: moved.count };
  }
  const loose = liveBlobs(
    await db
      .selectFrom("blobs")
      .select(["hash", "size", "pack_offset"])
      .where("pack", "is", null)
      .where("damaged", "=", 0)
      .limit(LOOSE_PER_STEP)
      .execute(),
  );
  if (loose.length === 0) return undefined;
  let bytes = 0;
  const batch = loose.filter((blob) => (bytes += blob.size) <= PACK_BYTES || blob === loose[0]);
  const moved = await moveInto(database, files, reader, batch, null, now);
  for (const hash of moved.hashes) files.packs.deleteLoose(hash);
  return { packsRemoved: 0, bytesFreed: 0, blobsMoved: moved.count };
}

/**
 * Copies blobs into a new durable pack, then moves the rows that still name `from` (a pack, or
 * null for blobs stored one file each) to it in one transaction. A blob deleted or repaired
 * meanwhile keeps its row as it is; its copy in the new pack is dead bytes.
 */
async function moveInto(
  database: PlatformDatabase,
  files: ContentFiles,
  reader: BlobReader,
  blobs: LiveBlob[],
  from: string | null,
  now: number,
): Promise<{ count: number; bytes: number; hashes: string[] }> {
  if (blobs.length === 0) return { count: 0, bytes: 0, hashes: [] };
  const writer = files.packs.newWriter();
  const placed: { hash: string; size: number; offset: number }[] = [];
  let pack: { id: string; size: number };
  try {
    for (const blob of blobs) {
      let bytes: Buffer;
      try {
        bytes = await reader.read(blob.hash);
      } catch {
        // Damaged (and now marked so) or deleted meanwhile: nothing to carry over.
        continue;
      }
      placed.push({ hash: blob.hash, size: blob.size, offset: writer.length });
      await writer.append(bytes);
    }
    pack = await files.storage.commit(writer);
  } catch (error) {
    await writer.discard();
    throw error;
  }
  const result = await database.transaction(async (trx) => {
    let bytes = 0;
    const hashes: string[] = [];
    for (const blob of placed) {
      const { numUpdatedRows } = await trx
        .updateTable("blobs")
        .set({ pack: pack.id, pack_offset: blob.offset })
        .where("hash", "=", blob.hash)
        .where("damaged", "=", 0)
        .where("pack", from === null ? "is" : "=", from)
        .executeTakeFirstOrThrow();
      if (numUpdatedRows === 0n) continue;
      bytes += blob.size;
      hashes.push(blob.hash);
    }
    await trx
      .insertInto("packs")
      .values({ id: pack.id, size: pack.size, live_bytes: bytes, created_at: now })
      .execute();
    if (bytes === 0) await deleteEmptyPacks(trx, [pack.id]);
    return { count: hashes.length, bytes, hashes };
  });
  if (result.count === 0) await files.storage.delete(pack.id);
  return result;
}
