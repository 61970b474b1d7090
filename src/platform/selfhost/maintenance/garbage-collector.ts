import { sql } from "kysely";
import type { PackStorage } from "../content/pack-storage.js";
import { type Executor, lockContent, type PlatformDatabase, rowsOf, slicesOf } from "../state/platform-db.js";
import type { ContentDirectory } from "../content/content-directory.js";
import { expireSessions } from "./session-expiry.js";

/** The content: the local files (blobs stored before packs, variants) and the packs' storage. */
export interface ContentFiles {
  packs: ContentDirectory;
  storage: PackStorage;
}

/** What one collection did. */
export interface CollectionResult {
  sessionsExpired: number;
  blobsDeleted: number;
  bytesFreed: number;
}

// Named by a manifest: by one of its hashes (manifest_hashes has each hash of a manifest's rows
// once, written with them, deleted with them, sites/manifest-hashes.ts). Named by an open session:
// by one of its hashes (session_hashes has each hash of a session's manifest once, written with or
// before the rows naming it, deleted after them). Each through its index by hash: an entry a
// distinct hash, where manifest_files(hash) and session_assets(hash) took one a path (issue 32).
const UNREFERENCED = sql`NOT EXISTS (SELECT 1 FROM manifest_hashes f WHERE f.hash = b.hash)
  AND NOT EXISTS (SELECT 1 FROM session_hashes s WHERE s.hash = b.hash)`;

/**
 * Reclaims what nothing needs any more: expired upload sessions, then every blob that no revision
 * and no open session names, then packs no blob lives in any more. Rows are chosen and deleted in
 * one transaction, and files are removed only after their rows are gone, so a row never names a
 * missing file. Packs still partly alive are left to compaction. All at once: for tests and small
 * databases; the sweeper goes through `collectGarbageStep`.
 */
export async function collectGarbage(
  database: PlatformDatabase,
  files: ContentFiles,
  now: number,
  batch = Number.MAX_SAFE_INTEGER,
): Promise<CollectionResult> {
  const { sessionsExpired, removed } = await database.transaction(async (trx) => {
    await lockContent(database, trx, "exclusive");
    const expired = await expireSessions(trx, now, batch);
    const rows = await unreferencedBlobs(trx, batch);
    return { sessionsExpired: expired.sessions, removed: await deleteRows(trx, rows) };
  });
  const { deleted, ...counts } = deleteFiles(files, removed);
  await deleted;
  return { sessionsExpired, ...counts };
}

/**
 * One bounded step of a collection, one transaction of at most `batch` rows: first the manifest
 * rows of expired sessions, then (once none is left) the expired sessions, then unreferenced blobs.
 * `done` once a step found nothing left to do. A million expired rows are so deleted in steps the
 * caller separates with pauses, where one transaction held the thread for seconds.
 */
export async function collectGarbageStep(
  database: PlatformDatabase,
  files: ContentFiles,
  now: number,
  batch: number,
): Promise<CollectionResult & { done: boolean }> {
  const { sessionsExpired, rows, removed } = await database.transaction(async (trx) => {
    await lockContent(database, trx, "exclusive");
    const expired = await expireSessions(trx, now, batch);
    if (expired.rows + expired.sessions > 0) {
      return {
        sessionsExpired: expired.sessions,
        rows: expired.rows + expired.sessions,
        removed: { blobs: [], packs: [] },
      };
    }
    const unreferenced = await unreferencedBlobs(trx, batch);
    return { sessionsExpired: 0, rows: unreferenced.length, removed: await deleteRows(trx, unreferenced) };
  });
  const { deleted, ...counts } = deleteFiles(files, removed);
  await deleted;
  return { sessionsExpired, ...counts, done: rows === 0 };
}

async function unreferencedBlobs(trx: Executor, batch: number): Promise<BlobRow[]> {
  const rows = await rowsOf(
    trx,
    sql<BlobRow>`SELECT b.hash, b.size, b.pack FROM blobs b WHERE ${UNREFERENCED} LIMIT ${batch}`,
  );
  return rows.map((row) => ({ ...row, size: Number(row.size) }));
}

/** Reclaims those of `hashes` that nothing references any more (after a project is removed). */
export async function reclaimBlobs(
  database: PlatformDatabase,
  files: ContentFiles,
  hashes: string[],
): Promise<CollectionResult> {
  const removed = await database.transaction(async (trx) => {
    await lockContent(database, trx, "exclusive");
    const rows: BlobRow[] = [];
    for (const slice of slicesOf(hashes, 1_000)) {
      const found = await rowsOf(
        trx,
        sql<BlobRow>`SELECT b.hash, b.size, b.pack FROM blobs b
          WHERE b.hash IN (${sql.join(slice)}) AND ${UNREFERENCED}`,
      );
      for (const row of found) rows.push({ ...row, size: Number(row.size) });
    }
    return deleteRows(trx, rows);
  });
  const { deleted, ...counts } = deleteFiles(files, removed);
  await deleted;
  return { sessionsExpired: 0, ...counts };
}

interface BlobRow {
  hash: string;
  size: number;
  pack: string | null;
}

interface Removed {
  blobs: BlobRow[];
  /** Packs left with no live blob, whose rows are gone too. */
  packs: string[];
}

/** Deletes blob rows, takes their bytes off their packs, and deletes the packs left empty. */
async function deleteRows(trx: Executor, rows: BlobRow[]): Promise<Removed> {
  const released = new Map<string, number>();
  for (const slice of slicesOf(rows, 1_000)) {
    await trx
      .deleteFrom("blobs")
      .where(
        "hash",
        "in",
        slice.map((row) => row.hash),
      )
      .execute();
  }
  for (const row of rows) {
    if (row.pack !== null) released.set(row.pack, (released.get(row.pack) ?? 0) + row.size);
  }
  for (const [pack, bytes] of released) {
    await trx
      .updateTable("packs")
      .set((eb) => ({ live_bytes: eb("live_bytes", "-", bytes) }))
      .where("id", "=", pack)
      .execute();
  }
  return { blobs: rows, packs: await deleteEmptyPacks(trx, released.keys()) };
}

/** Deletes the rows of those packs no blob row names any more; returns their ids. */
export async function deleteEmptyPacks(trx: Executor, candidates: Iterable<string>): Promise<string[]> {
  const empty: string[] = [];
  for (const slice of slicesOf([...candidates], 1_000)) {
    const rows = await trx
      .deleteFrom("packs")
      .where("id", "in", slice)
      .where(({ exists, not, selectFrom }) =>
        not(exists(selectFrom("blobs").select(sql.lit(1).as("one")).whereRef("blobs.pack", "=", "packs.id"))),
      )
      .returning("id")
      .execute();
    empty.push(...rows.map((row) => row.id));
  }
  return empty;
}

/**
 * Removes the files of what `deleteRows` removed; their rows are gone already. Blob files go at
 * once; packs are deleted from their storage by `deleted` (an object store answers later).
 */
export function deleteFiles(
  files: ContentFiles,
  removed: Removed,
): { blobsDeleted: number; bytesFreed: number; deleted: Promise<void> } {
  const attempt = (remove: () => void): void => {
    try {
      remove();
    } catch {
      // The rows are gone, so the request that got here has succeeded; a file that cannot be
      // removed now is an orphan, and orphans are removed at the next start.
    }
  };
  for (const row of removed.blobs) {
    attempt(() => files.packs.deleteVariants(row.hash));
    if (row.pack === null) attempt(() => files.packs.deleteLoose(row.hash));
  }
  // A pack that cannot be deleted now is an orphan, swept later, as above.
  const deleted = Promise.all(
    removed.packs.map((id) => files.storage.delete(id).catch(() => undefined)),
  ).then(() => undefined);
  return {
    blobsDeleted: removed.blobs.length,
    bytesFreed: removed.blobs.reduce((sum, row) => sum + row.size, 0),
    deleted,
  };
}
