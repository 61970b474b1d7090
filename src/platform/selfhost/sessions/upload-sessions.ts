import { sql } from "kysely";
import type { ManifestEntry } from "../../../core/manifest.js";
import type { PathOrder } from "../../../core/checked-manifest.js";
import type { PartRun, PartState, ReceivedBucket } from "../../../core/uploaded-bucket.js";
import { Pacer } from "../../../shared/event-loop.js";
import { readPartRun } from "./part-runs.js";
import { declareMediaTypes } from "./session-hashes.js";
import { deleteSessionRows, insertSessionBlobs, recordBlobs, type StoredBlob } from "./session-rows.js";
import { discardSession, type OpenedSession, openSession, type SessionRow } from "./session-open.js";
import { type Executor, firstOf, NOT_DURABLE, type PlatformDatabase } from "../state/platform-db.js";

/** A blob a bucket stored (its rows are written in session-rows.ts). */
export type { StoredBlob };

export type { OpenedSession, PartRun, PartState, ReceivedBucket, SessionRow };

/**
 * Upload sessions, their manifests, and the index of blobs held, in the platform database. Every
 * method is one statement or one transaction, so concurrent requests never see half of a change.
 */
export class UploadSessions {
  constructor(private readonly database: PlatformDatabase) {}

  /**
   * Records a session and its manifest, and what the project must upload (session-open.ts);
   * `byPath`: the entries in path order, when the caller has them.
   */
  open(
    session: SessionRow,
    entries: ManifestEntry[],
    now: number,
    pacer: Pacer,
    byPath?: PathOrder,
  ): Promise<OpenedSession> {
    return openSession(this.database, session, entries, now, pacer, byPath);
  }

  /** Removes a session that will not be used (a refused or failed prepare), with its rows. */
  discard(sessionId: string, pacer: Pacer = new Pacer()): Promise<void> {
    return discardSession(this.database, sessionId, pacer);
  }

  /**
   * Deletes the manifest rows of a session whose revision is published (its files are the
   * revision's now), a slice at a time. Its own row stays until it expires, counted as having
   * nothing: a repeated publish of it finds its revision published and copies nothing. No commit
   * waits for the disk (the publish's answer waited for three syncs of the log): rows a crash
   * leaves are deleted with the session when it expires.
   */
  async dropPublished(sessionId: string, pacer: Pacer): Promise<void> {
    await deleteSessionRows(this.database, sessionId, pacer, NOT_DURABLE);
  }

  /**
   * Records who prepared the session and the bytes it asked for, pending until it is published
   * or expires (PENDING_QUOTA_BYTES), and its manifest's digest when known (what publish finds
   * the project's equal manifest by, sites/manifest-staging.ts). Call in the transaction that
   * checked the quotas.
   */
  async reserve(
    trx: Executor,
    sessionId: string,
    clientAddress: string | null,
    bytes: number,
    manifestDigest: string | null = null,
  ): Promise<void> {
    await sql`UPDATE upload_sessions SET client_address = ${clientAddress}, pending_bytes = ${bytes},
      manifest_digest = ${manifestDigest} WHERE id = ${sessionId}`.execute(trx);
  }

  /** Bytes the live, unpublished sessions prepared from `clientAddress` asked for. */
  async pendingBytesOf(trx: Executor, clientAddress: string, now: number): Promise<number> {
    const row = await firstOf(
      trx,
      sql<{ n: number | string }>`SELECT CAST(COALESCE(SUM(pending_bytes), 0) AS BIGINT) AS n
        FROM upload_sessions WHERE client_address = ${clientAddress} AND expires_at > ${now}`,
    );
    return Number(row!.n);
  }

  /** Bytes of the distinct content of a project's kept revisions (PROJECT_QUOTA_BYTES). */
  async projectBytes(projectSlug: string, trx: Executor = this.database.db): Promise<number> {
    const row = await firstOf(
      trx,
      sql<{ n: number | string }>`SELECT CAST(COALESCE(SUM(b.size), 0) AS BIGINT) AS n FROM blobs b
        WHERE b.hash IN (SELECT hash FROM manifest_hashes WHERE project_slug = ${projectSlug})`,
    );
    return Number(row!.n);
  }

  /** The session, or undefined. */
  async get(sessionId: string): Promise<SessionRow | undefined> {
    const row = await firstOf(
      this.database.db,
      sql<SessionColumns>`SELECT id, project_slug, expires_at, published_revision
        FROM upload_sessions WHERE id = ${sessionId}`,
    );
    return row && sessionOf(row);
  }

  /**
   * The session and how many of its hashes it still misses (`missingCount`), in one read unless
   * its count of hashes is not written yet: what a publish checks.
   */
  async getWithMissing(sessionId: string): Promise<(SessionRow & { missing: number }) | undefined> {
    const row = await firstOf(
      this.database.db,
      sql<SessionColumns & { missing: number | string | null }>`SELECT id, project_slug, expires_at,
          published_revision,
          u.asset_hashes - (SELECT COUNT(*) FROM session_blobs h WHERE h.session_id = u.id) AS missing
        FROM upload_sessions u WHERE u.id = ${sessionId}`,
    );
    if (row === undefined) return undefined;
    const missing = row.missing === null ? await this.missingCount(sessionId) : Number(row.missing);
    return { ...sessionOf(row), missing };
  }

  /**
   * What receiving parts needs to know, for up to `limit` of the session's hashes from `from` on
   * (with `missingOnly`, only those it does not have yet), in one statement (part-runs.ts).
   */
  partRun(sessionId: string, from: string, limit: number, missingOnly: boolean): Promise<PartRun> {
    return readPartRun(this.database.db, sessionId, from, limit, missingOnly);
  }

  /** How many distinct hashes of the session it does not have yet (neither uploaded nor its own). */
  async missingCount(sessionId: string): Promise<number> {
    // Every session_blobs row of a session is a hash its manifest names (only those are
    // accepted), so what it misses is a subtraction: an index range count, not a scan of the
    // manifest joined to its content (after each of 25 buckets of a 50,000-file deploy, 100 ms).
    const fast = await firstOf(
      this.database.db,
      sql<{ n: number | string }>`SELECT u.asset_hashes - (SELECT COUNT(*) FROM session_blobs h
          WHERE h.session_id = u.id) AS n
        FROM upload_sessions u WHERE u.id = ${sessionId} AND u.asset_hashes IS NOT NULL`,
    );
    if (fast) return Number(fast.n);
    // Missing: named by the session and not yet its own (session_blobs), whoever else holds it.
    const slow = await firstOf(
      this.database.db,
      sql<{ n: number | string }>`SELECT COUNT(DISTINCT s.hash) AS n FROM session_assets s
        WHERE s.session_id = ${sessionId} AND s.hash <> '' AND NOT EXISTS
          (SELECT 1 FROM session_blobs h WHERE h.session_id = s.session_id AND h.hash = s.hash)`,
    );
    return Number(slow!.n);
  }

  /**
   * Records what one bucket request brought, in one transaction: its pack (already durable) and
   * the blobs in it, that the session has each verified hash, and the media types its parts
   * declared, which apply to this session's paths only. A blob another upload recorded meanwhile
   * keeps its row (this pack's copy is dead bytes); a damaged one is repaired to this copy.
   */
  async record(sessionId: string, bucket: ReceivedBucket, now: number): Promise<void> {
    await this.database.transaction(async (trx) => {
      const verified = [...(bucket.alreadyHeld ?? [])];
      if (bucket.pack) {
        const { id, size, blobs } = bucket.pack;
        const live = await recordBlobs(trx, this.database.dialect, id, blobs, now);
        await sql`INSERT INTO packs (id, size, live_bytes, created_at)
          VALUES (${id}, ${size}, ${live}, ${now})`.execute(trx);
        verified.push(...blobs.map((blob) => blob.hash));
      }
      await insertSessionBlobs(trx, this.database.dialect, sessionId, verified);
      // The last type a part declared for a hash is the one kept.
      await declareMediaTypes(trx, this.database.dialect, sessionId, bucket.mediaTypes);
    });
  }
}

/** The columns a session is read from. */
interface SessionColumns {
  id: string;
  project_slug: string;
  expires_at: number | string;
  published_revision: string | null;
}

/** A session as read. */
function sessionOf(row: SessionColumns): SessionRow {
  const session: SessionRow = {
    id: row.id,
    projectSlug: row.project_slug,
    expiresAt: Number(row.expires_at),
  };
  if (row.published_revision !== null) session.publishedRevision = row.published_revision;
  return session;
}
