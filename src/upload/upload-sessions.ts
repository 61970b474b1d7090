import type { ManifestEntry } from "../core/manifest.js";
import type { PlatformDatabase } from "../platform/local/database.js";

/** An open upload session: a project's manifest waiting for its missing content. */
export interface SessionRow {
  id: string;
  projectSlug: string;
  expiresAt: number;
}

/**
 * Upload sessions and the blobs index in the platform database. Synchronous: every method is one
 * statement or one transaction, so concurrent requests never see half of a change.
 */
export class UploadSessions {
  private readonly insertSession;
  private readonly insertAsset;
  private readonly selectSession;
  private readonly selectPathOfHash;
  private readonly selectMissing;
  private readonly countMissing;
  private readonly insertBlob;
  private readonly selectBlob;

  constructor(private readonly db: PlatformDatabase) {
    this.insertSession = db.prepare(
      "INSERT INTO upload_sessions (id, project_slug, created_at, expires_at) VALUES (?, ?, ?, ?)",
    );
    this.insertAsset = db.prepare(
      "INSERT OR REPLACE INTO session_assets (session_id, path, hash, size) VALUES (?, ?, ?, ?)",
    );
    this.selectSession = db.prepare(
      "SELECT id, project_slug AS projectSlug, expires_at AS expiresAt FROM upload_sessions WHERE id = ?",
    );
    this.selectPathOfHash = db.prepare(
      "SELECT path FROM session_assets WHERE session_id = ? AND hash = ? LIMIT 1",
    );
    const missing = `FROM session_assets s WHERE s.session_id = ?
      AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.hash = s.hash)`;
    this.selectMissing = db.prepare(`SELECT s.hash AS hash, MAX(s.size) AS size ${missing} GROUP BY s.hash`);
    this.countMissing = db.prepare(`SELECT COUNT(DISTINCT s.hash) AS n ${missing}`);
    this.insertBlob = db.prepare(
      "INSERT OR IGNORE INTO blobs (hash, size, content_type, created_at) VALUES (?, ?, ?, ?)",
    );
    this.selectBlob = db.prepare("SELECT size, content_type AS contentType FROM blobs WHERE hash = ?");
  }

  /** Records a session and its manifest; returns the assets the platform does not hold yet. */
  open(session: SessionRow, entries: ManifestEntry[], now: number): { hash: string; size: number }[] {
    return this.db.transaction(() => {
      this.insertSession.run(session.id, session.projectSlug, now, session.expiresAt);
      for (const entry of entries) this.insertAsset.run(session.id, entry.path, entry.hash, entry.size);
      return this.selectMissing.all(session.id) as { hash: string; size: number }[];
    })();
  }

  /** The session, or undefined. */
  get(sessionId: string): SessionRow | undefined {
    return this.selectSession.get(sessionId) as SessionRow | undefined;
  }

  /** A manifest path of `hash` in the session, or undefined when the session does not name it. */
  pathOf(sessionId: string, hash: string): string | undefined {
    return (this.selectPathOfHash.get(sessionId, hash) as { path: string } | undefined)?.path;
  }

  /** How many distinct hashes of the session have no blob yet. */
  missingCount(sessionId: string): number {
    return (this.countMissing.get(sessionId) as { n: number }).n;
  }

  /** True when the platform holds the blob. */
  hasBlob(hash: string): boolean {
    return this.selectBlob.get(hash) !== undefined;
  }

  /** Records a blob whose file is already durable. */
  addBlob(hash: string, size: number, contentType: string, now: number): void {
    this.insertBlob.run(hash, size, contentType, now);
  }
}
