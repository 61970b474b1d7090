import type { BlobStore } from "./blob-store.js";
import type { PlatformDatabase } from "./database.js";

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
 * and no open session names. Rows are chosen and deleted in one transaction (no upload or publish
 * can interleave: the platform database is used synchronously by one process), and files are
 * removed only after their rows are gone, so a row never names a missing blob. All at once: for
 * tests and small databases; the sweeper goes through `collectGarbageStep`.
 */
export function collectGarbage(
  db: PlatformDatabase,
  blobs: BlobStore,
  now: number,
  batch = Number.MAX_SAFE_INTEGER,
): CollectionResult {
  const { sessionsExpired, removed } = db.transaction(() => {
    const expired = expireSessions(db, now, batch);
    const rows = db
      .prepare(`SELECT hash, size FROM blobs b WHERE ${UNREFERENCED} LIMIT ?`)
      .all(batch) as BlobRow[];
    return { sessionsExpired: expired.sessions, removed: deleteRows(db, rows) };
  })();
  return { sessionsExpired, ...deleteFiles(blobs, removed) };
}

/**
 * One bounded step of a collection, one transaction of at most `batch` rows: first the manifest
 * rows of expired sessions, then (once none is left) the expired sessions, then unreferenced blobs.
 * `done` once a step found nothing left to do. A million expired rows are so deleted in steps the
 * caller separates with pauses, where one transaction held the thread for seconds.
 */
export function collectGarbageStep(
  db: PlatformDatabase,
  blobs: BlobStore,
  now: number,
  batch: number,
): CollectionResult & { done: boolean } {
  const { sessionsExpired, rows, removed } = db.transaction(() => {
    const expired = expireSessions(db, now, batch);
    if (expired.rows + expired.sessions > 0) {
      return { sessionsExpired: expired.sessions, rows: expired.rows + expired.sessions, removed: [] };
    }
    const unreferenced = db
      .prepare(`SELECT hash, size FROM blobs b WHERE ${UNREFERENCED} LIMIT ?`)
      .all(batch) as BlobRow[];
    return { sessionsExpired: 0, rows: unreferenced.length, removed: deleteRows(db, unreferenced) };
  })();
  return { sessionsExpired, ...deleteFiles(blobs, removed), done: rows === 0 };
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
export function reclaimBlobs(db: PlatformDatabase, blobs: BlobStore, hashes: string[]): CollectionResult {
  const select = db.prepare(`SELECT hash, size FROM blobs b WHERE b.hash = ? AND ${UNREFERENCED}`);
  const removed = db.transaction(() =>
    deleteRows(
      db,
      hashes.flatMap((hash) => (select.all(hash) as BlobRow[]) ?? []),
    ),
  )();
  return { sessionsExpired: 0, ...deleteFiles(blobs, removed) };
}

/**
 * Deletes blob files no row names: what a crash between removing a row and its file left behind.
 * Run at start, before any upload, since an upload writes its file just before its row.
 */
export function removeOrphanFiles(db: PlatformDatabase, blobs: BlobStore): number {
  const known = db.prepare("SELECT 1 FROM blobs WHERE hash = ?").pluck();
  let removed = 0;
  for (const hash of blobs.hashes()) {
    if (known.get(hash) === undefined) {
      blobs.delete(hash);
      removed++;
    }
  }
  return removed;
}

interface BlobRow {
  hash: string;
  size: number;
}

function deleteRows(db: PlatformDatabase, rows: BlobRow[]): BlobRow[] {
  const remove = db.prepare("DELETE FROM blobs WHERE hash = ?");
  for (const row of rows) remove.run(row.hash);
  return rows;
}

function deleteFiles(blobs: BlobStore, rows: BlobRow[]): { blobsDeleted: number; bytesFreed: number } {
  for (const row of rows) {
    try {
      blobs.delete(row.hash);
    } catch {
      // The rows are gone, so the request that got here has succeeded; a file that cannot be
      // removed now is an orphan, and orphans are removed at the next start.
    }
  }
  return { blobsDeleted: rows.length, bytesFreed: rows.reduce((sum, row) => sum + row.size, 0) };
}
