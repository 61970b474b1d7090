import { sql } from "kysely";
import type { ManifestEntry } from "../../../core/manifest.js";
import type { PartRun, PartState, ReceivedBucket } from "../../../core/uploaded-bucket.js";
import { Pacer } from "../../../shared/event-loop.js";
import { readPartRun } from "./part-runs.js";
import { sortByHash } from "./hash-order.js";
import { declareMediaTypes, hashRunsOf, insertSessionHashes } from "./session-hashes.js";
import { insertTombstones, planDelta } from "./delta-open.js";
import {
  deleteSessionRows,
  insertAssets,
  insertSessionBlobs,
  ownedByRevision,
  ownedBySession,
  POSTGRES_ROWS_PER_SLICE,
  projectHoldsContent,
  recordBlobs,
  ROWS_PER_SLICE,
  type StoredBlob,
} from "./session-rows.js";
import {
  type Executor,
  firstOf,
  lockContent,
  type PlatformDatabase,
  NOT_DURABLE,
} from "../state/platform-db.js";

/** A blob a bucket stored (its rows are written in session-rows.ts). */
export type { StoredBlob };

/** An open upload session: a project's manifest waiting for its missing content. */
export interface SessionRow {
  id: string;
  projectSlug: string;
  expiresAt: number;
  /** The revision it was published as, once it was (its manifest rows are gone then). */
  publishedRevision?: string;
}

/** What opening a session found: what the project must upload, and what it adds to its content. */
export interface OpenedSession {
  /** The assets to ask for: each hash once, at its largest declared size. */
  missing: { hash: string; size: number }[];
  /** Declared bytes of the manifest's content that none of the project's kept revisions has. */
  addedBytes: number;
  /** That content: each hash at its largest declared size. */
  added: Map<string, number>;
}

export type { PartRun, PartState, ReceivedBucket };

/**
 * Upload sessions, their manifests, and the index of blobs held, in the platform database. Every
 * method is one statement or one transaction, so concurrent requests never see half of a change.
 */
export class UploadSessions {
  constructor(private readonly database: PlatformDatabase) {}

  /**
   * Records a session and its manifest, each path with the media type of its extension until an
   * upload says otherwise; returns the assets this project does not have yet (each hash once, at
   * its largest size): every hash that none of its kept revisions and none of its open sessions
   * has, whatever other projects hold (contract §3). Content is stored once, but each project
   * proves it has the bytes; otherwise the answer would tell a stranger what others uploaded.
   * Also returns the declared bytes the manifest adds to the project's kept content (its quota).
   *
   * A manifest of 100,000 entries is written in transactions of ROWS_PER_SLICE entries each
   * (POSTGRES_ROWS_PER_SLICE on PostgreSQL; a few statements: what the project has of its
   * hashes, then its rows), with the event loop
   * free between them once `pacer` says a slice is due. Nobody can use the session before this
   * returns (its upload token does not exist yet) and each blob is looked up in the transaction
   * that writes the row naming it, so a half-written session only ever keeps content alive. If a
   * slice fails, what was written is removed. A session of a project with a full manifest is
   * recorded as a delta of it when small (delta-open.ts): its rows are then the paths added or
   * changed, and a tombstone per path removed.
   */
  async open(
    session: SessionRow,
    entries: ManifestEntry[],
    now: number,
    pacer: Pacer,
  ): Promise<OpenedSession> {
    // In hash order: rows so written land on neighbouring pages of every index keyed by hash
    // (in manifest order, a 100,000-entry prepare got slower with every session the database
    // already held, 1.6 s → 3.4 s over four), and each hash's entries are neighbours.
    const delta = await planDelta(this.database, session.projectSlug, entries, pacer);
    const ordered = await sortByHash(delta?.changed ?? entries, (entry) => entry.hash, pacer);
    const runs = await hashRunsOf(ordered, pacer);
    const missing: { hash: string; size: number }[] = [];
    // Content none of the project's kept revisions has: what this deploy adds to its quota.
    const added = new Map<string, number>();
    let addedBytes = 0;
    const { dialect } = this.database;
    const rowsPerSlice = dialect === "postgres" ? POSTGRES_ROWS_PER_SLICE : ROWS_PER_SLICE;
    const sliceCount = Math.ceil(ordered.length / rowsPerSlice);
    // A manifest of one slice is recorded in one transaction, its session row with its count of
    // hashes included; a longer one's row comes first and is counted once its slices are written.
    const single = sliceCount === 1;
    const insertSession = (executor: Executor, hashes: number | null) =>
      sql`INSERT INTO upload_sessions (id, project_slug, created_at, expires_at, asset_hashes,
          base_manifest_id, file_count, row_bytes)
        VALUES (${session.id}, ${session.projectSlug}, ${now}, ${session.expiresAt}, ${hashes},
          ${delta?.baseId ?? null}, ${delta?.fileCount ?? null}, ${delta?.rowBytes ?? null})`.execute(
        executor,
      );
    if (!single) await insertSession(this.database.db, null);
    const inFlight: { runs: SliceRuns; owned: Promise<Owned> }[] = [];
    try {
      // Read once: content the project comes to hold meanwhile (a racing upload of another of its
      // sessions) would be missed by a slice looked up before it just as well. Not for one slice,
      // whose two look-ups cost no more than the question.
      const holds = single || (await projectHoldsContent(this.database.db, session.projectSlug, now));
      // On PostgreSQL a slice is written while this thread makes the next (the server's work and
      // this thread's were taken in turn); SQLite's one connection writes them in turn anyway.
      const window = dialect === "postgres" ? 2 : 1;
      const account = ({ runs: written, owned }: { runs: SliceRuns; owned: Owned }) => {
        for (const { hash, size } of written) {
          if (owned.inRevision.has(hash)) continue;
          added.set(hash, size);
          addedBytes += size;
          if (!owned.inSession.has(hash)) missing.push({ hash, size });
        }
      };
      for (let index = 0, run = 0; index < sliceCount; index++) {
        const end = Math.min((index + 1) * rowsPerSlice, ordered.length);
        const slice = ordered.slice(index * rowsPerSlice, end);
        // The hashes whose first entry is in this slice: each is looked up and written once.
        const first = run;
        while (run < runs.length && runs[run]!.start < end) run++;
        const freshRuns = runs.slice(first, run);
        const fresh = freshRuns.map((hash) => hash.hash);
        // Runs again whole if PostgreSQL aborts it (a deadlock): it changes nothing outside.
        const owned = this.database.transaction(async (trx): Promise<Owned> => {
          // Shared with other writers, exclusive to a collection: no blob found here is deleted
          // before this transaction's rows name it.
          await lockContent(this.database, trx, "shared");
          if (single) await insertSession(trx, runs.length);
          const none = new Set<string>();
          const inRevision = holds ? await ownedByRevision(trx, dialect, session.projectSlug, fresh) : none;
          const rest = inRevision.size === 0 ? fresh : fresh.filter((hash) => !inRevision.has(hash));
          const inSession = holds ? await ownedBySession(trx, dialect, session.projectSlug, rest, now) : none;
          await insertAssets(trx, dialect, session.id, slice);
          await insertSessionHashes(trx, dialect, session.id, freshRuns);
          await insertSessionBlobs(
            trx,
            dialect,
            session.id,
            fresh.filter((hash) => inRevision.has(hash) || inSession.has(hash)),
          );
          return { inRevision, inSession };
          // Made durable by a later durable commit before the prepare is answered: the count of
          // hashes below, or for a single slice the admission's (selfhost-platform.ts).
        }, NOT_DURABLE);
        // Awaited in turn below; a failure meanwhile is not unhandled.
        owned.catch(() => undefined);
        inFlight.push({ runs: freshRuns, owned });
        if (inFlight.length >= window) account(await settled(inFlight.shift()!));
        // A slice's transaction is a turn of the event loop at most (two of them held it 130 ms on
        // a busy machine).
        if (pacer.due() || index < sliceCount - 1) await pacer.next();
      }
      while (inFlight.length > 0) account(await settled(inFlight.shift()!));
      if (!single) {
        await sql`UPDATE upload_sessions SET asset_hashes = ${runs.length} WHERE id = ${session.id}`.execute(
          this.database.db,
        );
      }
      if (delta) await insertTombstones(this.database, session.id, delta.removed, rowsPerSlice, pacer);
    } catch (error) {
      // A slice still in flight would write after the discard.
      await Promise.allSettled(inFlight.map((slice) => slice.owned));
      await this.discard(session.id);
      throw error;
    }
    return { missing, addedBytes, added };
  }

  /**
   * Removes a session that will not be used (a refused or failed prepare), with its rows, a slice
   * at a time (nobody holds its token); its own row last, so that what a failure leaves is
   * collected when it expires.
   */
  async discard(sessionId: string, pacer: Pacer = new Pacer()): Promise<void> {
    await deleteSessionRows(this.database, sessionId, pacer);
    await sql`DELETE FROM upload_sessions WHERE id = ${sessionId}`.execute(this.database.db);
  }

  /**
   * Deletes the manifest rows of a session whose revision is published (its files are the
   * revision's now), a slice at a time. Its own row stays until it expires, counted as having
   * nothing: a repeated publish of it finds its revision published and copies nothing.
   */
  async dropPublished(sessionId: string, pacer: Pacer): Promise<void> {
    await deleteSessionRows(this.database, sessionId, pacer);
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
        WHERE b.hash IN (SELECT hash FROM manifest_files WHERE project_slug = ${projectSlug})`,
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
      await declareMediaTypes(trx, sessionId, bucket.mediaTypes);
    });
  }
}

/** The hashes a slice writes first, each at its largest size (HashRun). */
type SliceRuns = readonly { hash: string; size: number }[];

/** Which of a slice's hashes the project holds: in a kept revision, or in an open session. */
interface Owned {
  inRevision: Set<string>;
  inSession: Set<string>;
}

/** A slice in flight, once written. */
async function settled(slice: {
  runs: SliceRuns;
  owned: Promise<Owned>;
}): Promise<{ runs: SliceRuns; owned: Owned }> {
  return { runs: slice.runs, owned: await slice.owned };
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
