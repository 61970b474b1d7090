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
 * removed only after their rows are gone, so a row never names a missing blob.
 */
export function collectGarbage(
  db: PlatformDatabase,
  blobs: BlobStore,
  now: number,
  batch = Number.MAX_SAFE_INTEGER,
): CollectionResult {
  const { sessionsExpired, removed } = db.transaction(() => {
    db.prepare(
      "DELETE FROM session_assets WHERE session_id IN (SELECT id FROM upload_sessions WHERE expires_at <= ?)",
    ).run(now);
    const sessions = db.prepare("DELETE FROM upload_sessions WHERE expires_at <= ?").run(now).changes;
    const rows = db
      .prepare(`SELECT hash, size FROM blobs b WHERE ${UNREFERENCED} LIMIT ?`)
      .all(batch) as BlobRow[];
    return { sessionsExpired: sessions, removed: deleteRows(db, rows) };
  })();
  return { sessionsExpired, ...deleteFiles(blobs, removed) };
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
