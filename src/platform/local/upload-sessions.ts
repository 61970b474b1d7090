import type { ManifestEntry } from "../../core/manifest.js";
import { mediaTypeFor } from "../../shared/media-types.js";
import type { PlatformDatabase } from "./database.js";

/** An open upload session: a project's manifest waiting for its missing content. */
export interface SessionRow {
  id: string;
  projectSlug: string;
  expiresAt: number;
}

/** What one bucket request verified and wrote: blobs to record, media types its parts declared. */
export interface ReceivedBucket {
  blobs: { hash: string; size: number }[];
  mediaTypes: { hash: string; mediaType: string }[];
}

/**
 * Upload sessions, their manifests, and the index of blobs held, in the platform database.
 * Synchronous: every method is one statement or one transaction, so concurrent requests never see
 * half of a change.
 */
export class UploadSessions {
  private readonly statements;

  constructor(private readonly db: PlatformDatabase) {
    const missing = `FROM session_assets s WHERE s.session_id = ?
      AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.hash = s.hash)`;
    this.statements = {
      insertSession: db.prepare(
        "INSERT INTO upload_sessions (id, project_slug, created_at, expires_at) VALUES (?, ?, ?, ?)",
      ),
      insertAsset: db.prepare(
        "INSERT OR REPLACE INTO session_assets (session_id, path, hash, size, content_type) VALUES (?, ?, ?, ?, ?)",
      ),
      selectSession: db.prepare(
        "SELECT id, project_slug AS projectSlug, expires_at AS expiresAt FROM upload_sessions WHERE id = ?",
      ),
      selectPathOfHash: db.prepare(
        "SELECT path FROM session_assets WHERE session_id = ? AND hash = ? LIMIT 1",
      ),
      selectMissing: db.prepare(`SELECT s.hash AS hash, MAX(s.size) AS size ${missing} GROUP BY s.hash`),
      countMissing: db.prepare(`SELECT COUNT(DISTINCT s.hash) AS n ${missing}`),
      setMediaType: db.prepare(
        "UPDATE session_assets SET content_type = ? WHERE session_id = ? AND hash = ?",
      ),
      insertBlob: db.prepare("INSERT OR IGNORE INTO blobs (hash, size, created_at) VALUES (?, ?, ?)"),
      selectBlob: db.prepare("SELECT 1 FROM blobs WHERE hash = ?"),
    };
  }

  /**
   * Records a session and its manifest, each path with the media type of its extension until an
   * upload says otherwise; returns the assets the platform does not hold yet.
   */
  open(session: SessionRow, entries: ManifestEntry[], now: number): { hash: string; size: number }[] {
    const s = this.statements;
    return this.db.transaction(() => {
      s.insertSession.run(session.id, session.projectSlug, now, session.expiresAt);
      for (const entry of entries) {
        s.insertAsset.run(session.id, entry.path, entry.hash, entry.size, mediaTypeFor(entry.path));
      }
      return s.selectMissing.all(session.id) as { hash: string; size: number }[];
    })();
  }

  /** The session, or undefined. */
  get(sessionId: string): SessionRow | undefined {
    return this.statements.selectSession.get(sessionId) as SessionRow | undefined;
  }

  /** A manifest path of `hash` in the session, or undefined when the session does not name it. */
  pathOf(sessionId: string, hash: string): string | undefined {
    return (this.statements.selectPathOfHash.get(sessionId, hash) as { path: string } | undefined)?.path;
  }

  /** How many distinct hashes of the session have no blob yet. */
  missingCount(sessionId: string): number {
    return (this.statements.countMissing.get(sessionId) as { n: number }).n;
  }

  /** True when the platform holds the blob. */
  hasBlob(hash: string): boolean {
    return this.statements.selectBlob.get(hash) !== undefined;
  }

  /**
   * Records what one bucket request brought, in one transaction: the blobs (whose files are already
   * durable) and the media types its parts declared, which apply to this session's paths only.
   */
  record(sessionId: string, bucket: ReceivedBucket, now: number): void {
    const s = this.statements;
    this.db.transaction(() => {
      for (const blob of bucket.blobs) s.insertBlob.run(blob.hash, blob.size, now);
      for (const { hash, mediaType } of bucket.mediaTypes) s.setMediaType.run(mediaType, sessionId, hash);
    })();
  }
}
