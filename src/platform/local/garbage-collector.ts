import type { PlatformDatabase } from "./database.js";
import type { PackStorage } from "./pack-storage.js";
import type { PackStore } from "./pack-store.js";

/** The content: the local files (blobs stored before packs, variants) and the packs' storage. */
export interface ContentFiles {
  packs: PackStore;
  storage: PackStorage;
}

/** What one collection did. */
export interface CollectionResult {
  sessionsExpired: number;
  blobsDeleted: number;
  bytesFreed: number;
}

const UNREFERENCED = `NOT EXISTS (SELECT 1 FROM revision_files f WHERE f.hash = b.hash)
  AND NOT EXISTS (SELECT 1 FROM session_assets s WHERE s.hash = b.hash)`;

/**
 * Reclaims what nothing needs any more: expired upload sessions, then every blob that no revision
 * and no open session names, then packs no blob lives in any more. Rows are chosen and deleted in
 * one transaction (no upload or publish can interleave: the platform database is used
 * synchronously by one process), and files are removed only after their rows are gone, so a row
 * never names a missing file. Packs still partly alive are left to compaction. All at once: for
 * tests and small databases; the sweeper goes through `collectGarbageStep`. Synchronous: packs in
 * an object store are deleted after it returns.
 */
export function collectGarbage(
  db: PlatformDatabase,
  files: ContentFiles,
  now: number,
  batch = Number.MAX_SAFE_INTEGER,
): CollectionResult {
  const { sessionsExpired, removed } = db.transaction(() => {
    const expired = expireSessions(db, now, batch);
    const rows = db
      .prepare(`SELECT ${BLOB_COLUMNS} FROM blobs b WHERE ${UNREFERENCED} LIMIT ?`)
      .all(batch) as BlobRow[];
    return { sessionsExpired: expired.sessions, removed: deleteRows(db, rows) };
  })();
  const { blobsDeleted, bytesFreed } = deleteFiles(files, removed);
  return { sessionsExpired, blobsDeleted, bytesFreed };
}

/**
 * One bounded step of a collection, one transaction of at most `batch` rows: first the manifest
 * rows of expired sessions, then (once none is left) the expired sessions, then unreferenced blobs.
 * `done` once a step found nothing left to do. A million expired rows are so deleted in steps the
 * caller separates with pauses, where one transaction held the thread for seconds.
 */
export async function collectGarbageStep(
  db: PlatformDatabase,
  files: ContentFiles,
  now: number,
  batch: number,
): Promise<CollectionResult & { done: boolean }> {
  const { sessionsExpired, rows, removed } = db.transaction(() => {
    const expired = expireSessions(db, now, batch);
    if (expired.rows + expired.sessions > 0) {
      return {
        sessionsExpired: expired.sessions,
        rows: expired.rows + expired.sessions,
        removed: { blobs: [], packs: [] },
      };
    }
    const unreferenced = db
      .prepare(`SELECT ${BLOB_COLUMNS} FROM blobs b WHERE ${UNREFERENCED} LIMIT ?`)
      .all(batch) as BlobRow[];
    return { sessionsExpired: 0, rows: unreferenced.length, removed: deleteRows(db, unreferenced) };
  })();
  const { deleted, ...counts } = deleteFiles(files, removed);
  await deleted;
  return { sessionsExpired, ...counts, done: rows === 0 };
}

/**
 * Deletes up to `batch` manifest rows of expired sessions (and up to `batch` of their records of
 * content they have); once those were the last of them, up to `batch` expired sessions (which then
 * name nothing). Call inside a transaction.
 */
function expireSessions(
  db: PlatformDatabase,
  now: number,
  batch: number,
): { rows: number; sessions: number } {
  // Each statement deletes at most `batch` rows; fewer means it found none left.
  const rows =
    db
      .prepare(
        `DELETE FROM session_assets WHERE (session_id, path) IN (
         SELECT s.session_id, s.path FROM upload_sessions u JOIN session_assets s ON s.session_id = u.id
         WHERE u.expires_at <= ? LIMIT ?)`,
      )
      .run(now, batch).changes +
    db
      .prepare(
        `DELETE FROM session_blobs WHERE (session_id, hash) IN (
         SELECT h.session_id, h.hash FROM upload_sessions u JOIN session_blobs h ON h.session_id = u.id
         WHERE u.expires_at <= ? LIMIT ?)`,
      )
      .run(now, batch).changes;
  if (rows >= batch) return { rows, sessions: 0 };
  const sessions = db
    .prepare(
      "DELETE FROM upload_sessions WHERE id IN (SELECT id FROM upload_sessions WHERE expires_at <= ? LIMIT ?)",
    )
    .run(now, batch).changes;
  return { rows: 0, sessions };
}

/** Reclaims those of `hashes` that nothing references any more (after a project is removed). */
export async function reclaimBlobs(
  db: PlatformDatabase,
  files: ContentFiles,
  hashes: string[],
): Promise<CollectionResult> {
  const select = db.prepare(`SELECT ${BLOB_COLUMNS} FROM blobs b WHERE b.hash = ? AND ${UNREFERENCED}`);
  const removed = db.transaction(() =>
    deleteRows(
      db,
      hashes.flatMap((hash) => (select.all(hash) as BlobRow[]) ?? []),
    ),
  )();
  const { deleted, ...counts } = deleteFiles(files, removed);
  await deleted;
  return { sessionsExpired: 0, ...counts };
}

/**
 * Deletes content no row names: what a crash between writing a pack and its rows, or between
 * removing rows and their file, left behind. Packs written at or after `writtenBefore` are kept:
 * a writer may be between storing one and recording it (run at start, before any upload, with
 * Infinity, when no other process writes to the same packs).
 */
export async function removeOrphanFiles(
  db: PlatformDatabase,
  files: ContentFiles,
  writtenBefore = Number.POSITIVE_INFINITY,
): Promise<number> {
  const knownPack = db.prepare("SELECT 1 FROM packs WHERE id = ?").pluck();
  const knownLoose = db.prepare("SELECT 1 FROM blobs WHERE hash = ? AND pack IS NULL").pluck();
  const { packs, storage } = files;
  let removed = 0;
  for (const pack of await storage.list()) {
    if (pack.writtenAt < writtenBefore && knownPack.get(pack.id) === undefined) {
      await storage.delete(pack.id);
      removed++;
    }
  }
  for (const hash of packs.looseHashes()) {
    if (knownLoose.get(hash) === undefined) {
      packs.deleteLoose(hash);
      removed++;
    }
  }
  return removed;
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

const BLOB_COLUMNS = "hash, size, pack";

/** Deletes blob rows, takes their bytes off their packs, and deletes the packs left empty. */
function deleteRows(db: PlatformDatabase, rows: BlobRow[]): Removed {
  const remove = db.prepare("DELETE FROM blobs WHERE hash = ?");
  const release = db.prepare("UPDATE packs SET live_bytes = live_bytes - ? WHERE id = ?");
  const touched = new Set<string>();
  for (const row of rows) {
    remove.run(row.hash);
    if (row.pack !== null) {
      release.run(row.size, row.pack);
      touched.add(row.pack);
    }
  }
  return { blobs: rows, packs: deleteEmptyPacks(db, touched) };
}

/** Deletes the rows of those packs no blob row names any more; returns their ids. */
export function deleteEmptyPacks(db: PlatformDatabase, candidates: Iterable<string>): string[] {
  const named = db.prepare("SELECT 1 FROM blobs WHERE pack = ? LIMIT 1").pluck();
  const remove = db.prepare("DELETE FROM packs WHERE id = ?");
  const empty: string[] = [];
  for (const id of candidates) {
    if (named.get(id) === undefined) {
      remove.run(id);
      empty.push(id);
    }
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
