import type { ManifestEntry } from "../../core/manifest.js";
import type { Pacer } from "../../shared/event-loop.js";
import { mediaTypeFor } from "../../shared/media-types.js";
import type { PlatformDatabase } from "./database.js";

/** An open upload session: a project's manifest waiting for its missing content. */
export interface SessionRow {
  id: string;
  projectSlug: string;
  expiresAt: number;
}

/** What opening a session found: what the project must upload, and what it adds to its content. */
export interface OpenedSession {
  /** The assets to ask for: each hash once, at its largest declared size. */
  missing: { hash: string; size: number }[];
  /** Declared bytes of the manifest's content that none of the project's kept revisions has. */
  addedBytes: number;
}

/** A blob a bucket stored: its bytes are `size` bytes from `offset` of the bucket's pack. */
export interface StoredBlob {
  hash: string;
  size: number;
  offset: number;
}

/**
 * What one bucket request verified: the pack it wrote (durable already) with the blobs in it,
 * content whose blob was held already (verified all the same), and media types its parts declared.
 */
export interface ReceivedBucket {
  pack?: { id: string; size: number; blobs: StoredBlob[] };
  /** Hashes whose bytes were verified but not stored again: the platform held them. */
  alreadyHeld?: string[];
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
    // Missing: named by the session and not yet its own (session_blobs), whoever else holds it.
    const missing = `FROM session_assets s WHERE s.session_id = ?
      AND NOT EXISTS (SELECT 1 FROM session_blobs h WHERE h.session_id = s.session_id AND h.hash = s.hash)`;
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
      selectAssetOfHash: db.prepare(
        "SELECT MIN(path) AS path, MAX(size) AS size FROM session_assets WHERE session_id = ? AND hash = ?",
      ),
      reserve: db.prepare("UPDATE upload_sessions SET client_address = ?, pending_bytes = ? WHERE id = ?"),
      selectPendingOf: db.prepare(
        `SELECT COALESCE(SUM(pending_bytes), 0) AS n FROM upload_sessions
         WHERE client_address = ? AND expires_at > ?`,
      ),
      selectProjectBytes: db.prepare(
        `SELECT COALESCE(SUM(b.size), 0) AS n FROM blobs b
         WHERE b.hash IN (SELECT hash FROM revision_files WHERE project_slug = ?)`,
      ),
      deleteAssets: db.prepare("DELETE FROM session_assets WHERE session_id = ?"),
      deleteSession: db.prepare("DELETE FROM upload_sessions WHERE id = ?"),
      countMissing: db.prepare(`SELECT COUNT(DISTINCT s.hash) AS n ${missing}`),
      // Every session_blobs row of a session is a hash its manifest names (only those are
      // accepted), so what it misses is a subtraction: an index range count, not a scan of the
      // manifest joined to its content (after each of 25 buckets of a 50,000-file deploy, 100 ms).
      countMissingFast: db.prepare(
        `SELECT u.asset_hashes - (SELECT COUNT(*) FROM session_blobs h WHERE h.session_id = u.id) AS n
         FROM upload_sessions u WHERE u.id = ? AND u.asset_hashes IS NOT NULL`,
      ),
      setAssetHashes: db.prepare("UPDATE upload_sessions SET asset_hashes = ? WHERE id = ?"),
      setMediaType: db.prepare(
        "UPDATE session_assets SET content_type = ? WHERE session_id = ? AND hash = ?",
      ),
      insertPack: db.prepare("INSERT INTO packs (id, size, live_bytes, created_at) VALUES (?, ?, ?, ?)"),
      selectBlobState: db.prepare("SELECT pack, damaged FROM blobs WHERE hash = ?"),
      insertBlob: db.prepare(
        "INSERT OR IGNORE INTO blobs (hash, size, created_at, pack, pack_offset, damaged) VALUES (?, ?, ?, ?, ?, 0)",
      ),
      repairBlob: db.prepare("UPDATE blobs SET pack = ?, pack_offset = ?, damaged = 0 WHERE hash = ?"),
      releasePackBytes: db.prepare("UPDATE packs SET live_bytes = live_bytes - ? WHERE id = ?"),
      selectBlob: db.prepare("SELECT 1 FROM blobs WHERE hash = ? AND damaged = 0"),
      insertSessionBlob: db.prepare("INSERT OR IGNORE INTO session_blobs (session_id, hash) VALUES (?, ?)"),
      selectSessionBlob: db.prepare("SELECT 1 FROM session_blobs WHERE session_id = ? AND hash = ?"),
      deleteSessionBlobs: db.prepare("DELETE FROM session_blobs WHERE session_id = ?"),
      // Content a project already has: in one of its kept revisions, or verified in (or granted
      // to) one of its open sessions; and whose bytes are whole (a damaged blob is asked again).
      selectOwnedByRevision: db.prepare(
        `SELECT 1 FROM revision_files f JOIN blobs b ON b.hash = f.hash AND b.damaged = 0
         WHERE f.project_slug = ? AND f.hash = ? LIMIT 1`,
      ),
      selectOwnedBySession: db.prepare(
        `SELECT 1 FROM upload_sessions u JOIN session_blobs h ON h.session_id = u.id AND h.hash = ?
         JOIN blobs b ON b.hash = h.hash AND b.damaged = 0
         WHERE u.project_slug = ? AND u.expires_at > ? LIMIT 1`,
      ),
    };
  }

  /**
   * Records a session and its manifest, each path with the media type of its extension until an
   * upload says otherwise; returns the assets this project does not have yet (each hash once, at
   * its largest size): every hash that none of its kept revisions and none of its open sessions
   * has, whatever other projects hold (contract §3). Content is stored once, but each project
   * proves it has the bytes; otherwise the answer would tell a stranger what others uploaded.
   * Also returns the declared bytes the manifest adds to the project's kept content (its quota).
   *
   * A manifest of 100,000 entries is written in transactions of about one `pacer` slice each, with
   * the event loop free between them (in one transaction it held the thread the edge and the
   * upload service share for half a second). Nobody can use the session before this returns (its
   * upload token does not exist yet) and each blob is looked up in the transaction that writes the
   * row naming it, so a half-written session only ever keeps content alive. If a slice fails, what
   * was written is removed.
   */
  async open(
    session: SessionRow,
    entries: ManifestEntry[],
    now: number,
    pacer: Pacer,
  ): Promise<OpenedSession> {
    const s = this.statements;
    const held = new Map<string, boolean>();
    const missing = new Map<string, number>();
    // Content none of the project's kept revisions has: what this deploy adds to its quota.
    const added = new Map<string, number>();
    const ordered = byHashPrefix(entries);
    let next = 0;
    const slice = this.db.transaction(() => {
      do {
        const entry = ordered[next++]!;
        s.insertAsset.run(session.id, entry.path, entry.hash, entry.size, mediaTypeFor(entry.path));
        let isHeld = held.get(entry.hash);
        if (isHeld === undefined) {
          const inRevision = s.selectOwnedByRevision.get(session.projectSlug, entry.hash) !== undefined;
          if (!inRevision) added.set(entry.hash, 0);
          isHeld =
            inRevision || s.selectOwnedBySession.get(entry.hash, session.projectSlug, now) !== undefined;
          held.set(entry.hash, isHeld);
          if (isHeld) s.insertSessionBlob.run(session.id, entry.hash);
        }
        const addedSize = added.get(entry.hash);
        if (addedSize !== undefined) added.set(entry.hash, Math.max(addedSize, entry.size));
        if (!isHeld) missing.set(entry.hash, Math.max(missing.get(entry.hash) ?? 0, entry.size));
        // The time is read every 256 rows: reading it costs more than writing one.
      } while (next < ordered.length && ((next & 255) !== 0 || !pacer.due()));
    });
    s.insertSession.run(session.id, session.projectSlug, now, session.expiresAt);
    try {
      while (next < ordered.length) {
        slice();
        if (next < ordered.length) await pacer.next();
      }
      s.setAssetHashes.run(held.size, session.id);
    } catch (error) {
      this.discard(session.id);
      throw error;
    }
    let addedBytes = 0;
    for (const size of added.values()) addedBytes += size;
    return { missing: [...missing].map(([hash, size]) => ({ hash, size })), addedBytes };
  }

  /** Removes a session that will not be used (a refused or failed prepare), with its rows. */
  discard(sessionId: string): void {
    const s = this.statements;
    this.db.transaction(() => {
      s.deleteAssets.run(sessionId);
      s.deleteSessionBlobs.run(sessionId);
      s.deleteSession.run(sessionId);
    })();
  }

  /**
   * Records who prepared the session and the bytes it asked for, pending until it is published
   * or expires (PENDING_QUOTA_BYTES). Call in the transaction that checked the quotas.
   */
  reserve(sessionId: string, clientAddress: string | null, bytes: number): void {
    this.statements.reserve.run(clientAddress, bytes, sessionId);
  }

  /** Bytes the live, unpublished sessions prepared from `clientAddress` asked for. */
  pendingBytesOf(clientAddress: string, now: number): number {
    return (this.statements.selectPendingOf.get(clientAddress, now) as { n: number }).n;
  }

  /** Bytes of the distinct content of a project's kept revisions (PROJECT_QUOTA_BYTES). */
  projectBytes(projectSlug: string): number {
    return (this.statements.selectProjectBytes.get(projectSlug) as { n: number }).n;
  }

  /** The session, or undefined. */
  get(sessionId: string): SessionRow | undefined {
    return this.statements.selectSession.get(sessionId) as SessionRow | undefined;
  }

  /**
   * A manifest path of `hash` in the session and the size its manifest declared (the largest, if
   * several paths name it), or undefined when the session does not name it.
   */
  assetOf(sessionId: string, hash: string): { path: string; size: number } | undefined {
    const row = this.statements.selectAssetOfHash.get(sessionId, hash) as
      { path: string | null; size: number | null } | undefined;
    return row?.path == null || row.size == null ? undefined : { path: row.path, size: row.size };
  }

  /** How many distinct hashes of the session it does not have yet (neither uploaded nor its own). */
  missingCount(sessionId: string): number {
    const fast = this.statements.countMissingFast.get(sessionId) as { n: number } | undefined;
    return (fast ?? (this.statements.countMissing.get(sessionId) as { n: number })).n;
  }

  /** True when the platform holds the blob whole (for any project). */
  hasBlob(hash: string): boolean {
    return this.statements.selectBlob.get(hash) !== undefined;
  }

  /** True when the session has the content: verified in one of its uploads, or its project's. */
  sessionHas(sessionId: string, hash: string): boolean {
    return this.statements.selectSessionBlob.get(sessionId, hash) !== undefined;
  }

  /**
   * Records what one bucket request brought, in one transaction: its pack (already durable) and
   * the blobs in it, that the session has each verified hash, and the media types its parts
   * declared, which apply to this session's paths only. A blob another upload recorded meanwhile
   * keeps its row (this pack's copy is dead bytes); a damaged one is repaired to this copy.
   */
  record(sessionId: string, bucket: ReceivedBucket, now: number): void {
    const s = this.statements;
    this.db.transaction(() => {
      if (bucket.pack) {
        const { id, size, blobs } = bucket.pack;
        let live = 0;
        for (const blob of blobs) {
          // Inserted unless held: only then is the row looked at (a damaged one is repaired).
          if (s.insertBlob.run(blob.hash, blob.size, now, id, blob.offset).changes === 1) {
            live += blob.size;
          } else {
            const state = s.selectBlobState.get(blob.hash) as { pack: string | null; damaged: number };
            if (state.damaged) {
              s.repairBlob.run(id, blob.offset, blob.hash);
              if (state.pack !== null) s.releasePackBytes.run(blob.size, state.pack);
              live += blob.size;
            }
          }
          s.insertSessionBlob.run(sessionId, blob.hash);
        }
        s.insertPack.run(id, size, live, now);
      }
      for (const hash of bucket.alreadyHeld ?? []) s.insertSessionBlob.run(sessionId, hash);
      for (const { hash, mediaType } of bucket.mediaTypes) s.setMediaType.run(mediaType, sessionId, hash);
    })();
  }
}

/**
 * The entries in the order of their hash's first three hex digits (a counting sort, O(n)). Rows
 * written in that order land on neighbouring pages of the index on `session_assets(hash)`, so a
 * slice's commit writes a few of its pages rather than one per row: in manifest order, a
 * 100,000-entry prepare got slower with every session the database already held (1.6 s → 3.4 s
 * over four), in this order it stays near 1 s.
 */
function byHashPrefix(entries: ManifestEntry[]): ManifestEntry[] {
  const starts = new Uint32Array(4097);
  const keys = new Uint16Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    // The manifest's hashes are 32 lowercase hex digits (checked before).
    const key = parseInt(entries[i]!.hash.slice(0, 3), 16);
    keys[i] = key;
    starts[key + 1]!++;
  }
  for (let key = 1; key <= 4096; key++) starts[key]! += starts[key - 1]!;
  const ordered = new Array<ManifestEntry>(entries.length);
  for (let i = 0; i < entries.length; i++) ordered[starts[keys[i]!]!++] = entries[i]!;
  return ordered;
}
