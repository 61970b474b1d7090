import { sql } from "kysely";
import type { PathOrder } from "../../../core/checked-manifest.js";
import type { ManifestEntry } from "../../../core/manifest.js";
import { Pacer } from "../../../shared/event-loop.js";
import { sortByHash } from "./hash-order.js";
import { pathOrderFits, PathOrderRows, placesByPath } from "./path-order.js";
import { hashRunsOf, insertSessionHashes } from "./session-hashes.js";
import { insertTombstones, planDelta } from "./delta-open.js";
import {
  deleteSessionRows,
  insertAssets,
  insertSessionBlobs,
  POSTGRES_ROWS_PER_SLICE,
  ROWS_PER_SLICE,
} from "./session-rows.js";
import { ownedByRevision, ownedBySession, projectHoldsContent } from "./content-ownership.js";
import { typesOfPaced } from "./entry-types.js";
import { type Executor, lockContent, type PlatformDatabase, NOT_DURABLE } from "../state/platform-db.js";

// Opening an upload session: its manifest's rows written in slices (UploadSessions.open).

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
  /**
   * The sizes of that content's hashes that one of the session's paths names with a compressible
   * media type (by its extension): what the quota's charge for variants needs of a whole session.
   */
  compressibleSizes: number[];
  /**
   * That content, each hash at its largest declared size: of a delta session only, whose charge
   * judges every path of its whole manifest (a Map of 100,000 hashes was a twentieth of a
   * 100,000-entry prepare's time on the thread the service shares, issue 32).
   */
  added?: Map<string, number>;
}

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
export async function openSession(
  database: PlatformDatabase,
  session: SessionRow,
  entries: ManifestEntry[],
  now: number,
  pacer: Pacer,
  byPath?: PathOrder,
): Promise<OpenedSession> {
  // The rows (session_assets, keyed by path) in path order, as a publish copies them into
  // manifest_files (keyed by path); the hashes and their look-ups in hash order: rows so written
  // land on neighbouring pages of every index keyed by hash (in manifest order, a 100,000-entry
  // prepare got slower with every session the database already held, 1.6 s → 3.4 s over four),
  // and each hash's entries are neighbours. Slice k writes the k-th slice of each order.
  const delta = await planDelta(database, session.projectSlug, entries, pacer);
  const source = delta?.changed ?? entries;
  const ordered = await sortByHash(source, (entry) => entry.hash, pacer);
  const runs = await hashRunsOf(ordered, pacer);
  // Each entry's media type once: its row's, and whether its hash's content gets variants.
  const kinds = await typesOfPaced(ordered, pacer);
  // The rows in path order: the caller's (sorted in a worker, with strings laid out in that
  // order) when they are of `ordered`, else read off it by places sorted here.
  const rows =
    delta === undefined && byPath !== undefined && (await pathOrderFits(byPath, ordered, source, pacer))
      ? new PathOrderRows(ordered, byPath)
      : new PathOrderRows(ordered, await placesByPath(ordered, pacer));
  const missing: { hash: string; size: number }[] = [];
  // Content none of the project's kept revisions has: what this deploy adds to its quota.
  const added = delta ? new Map<string, number>() : undefined;
  const compressibleSizes: number[] = [];
  let addedBytes = 0;
  const { dialect } = database;
  const rowsPerSlice = dialect === "postgres" ? POSTGRES_ROWS_PER_SLICE : ROWS_PER_SLICE;
  const sliceCount = Math.ceil(ordered.length / rowsPerSlice);
  // A manifest of one slice is recorded in one transaction, its session row with its count of
  // hashes included; a longer one's row comes first and is counted once its slices are written.
  const single = sliceCount === 1;
  const insertSession = (executor: Executor, hashes: number | null) =>
    sql`INSERT INTO upload_sessions (id, project_slug, created_at, expires_at, asset_hashes,
        base_manifest_id, file_count, row_bytes)
      VALUES (${session.id}, ${session.projectSlug}, ${now}, ${session.expiresAt}, ${hashes},
        ${delta?.baseId ?? null}, ${delta?.fileCount ?? null}, ${delta?.rowBytes ?? null})`.execute(executor);
  if (!single) await insertSession(database.db, null);
  const inFlight: { runs: SliceRuns; owned: Promise<Owned> }[] = [];
  // Whether one of the entries of runs[index] (neighbours, in hash order) has a compressible type.
  const compressibleRun = (index: number) => {
    const end = index + 1 < runs.length ? runs[index + 1]!.start : ordered.length;
    for (let i = runs[index]!.start; i < end; i++) if (kinds.compressible[i] === 1) return 1;
    return 0;
  };
  // compressibleRun of each run, found as its slice is made (written with its hash) and read
  // again once the slice is written (what the session adds of variants).
  const runCompressible = new Uint8Array(runs.length);
  try {
    // Read once: content the project comes to hold meanwhile (a racing upload of another of its
    // sessions) would be missed by a slice looked up before it just as well. Not for one slice,
    // whose two look-ups cost no more than the question.
    const holds = single || (await projectHoldsContent(database.db, session.projectSlug, now));
    // On PostgreSQL a slice is written while this thread makes the next (the server's work and
    // this thread's were taken in turn); SQLite's one connection writes them in turn anyway.
    const window = dialect === "postgres" ? 2 : 1;
    const account = ({ runs: written, owned }: { runs: SliceRuns; owned: Owned }) => {
      for (let index = written.first; index < written.end; index++) {
        const { hash, size } = runs[index]!;
        if (owned.inRevision.has(hash)) continue;
        added?.set(hash, size);
        addedBytes += size;
        if (runCompressible[index] === 1) compressibleSizes.push(size);
        if (!owned.inSession.has(hash)) missing.push({ hash, size });
      }
    };
    for (let index = 0, run = 0; index < sliceCount; index++) {
      const end = Math.min((index + 1) * rowsPerSlice, ordered.length);
      const start = index * rowsPerSlice;
      // The session's rows of this slice of path order, with their kinds.
      const places = rows.places.subarray(start, end);
      const slice = rows.next(end);
      // The hashes whose first entry is in this slice: each is looked up and written once.
      const first = run;
      while (run < runs.length && runs[run]!.start < end) run++;
      const freshRuns = runs.slice(first, run);
      const sliceKinds = {
        types: Array.from(places, (place) => kinds.types[place]!),
        compressible: Array.from(places, (place) => kinds.compressible[place]!),
      };
      const fresh = freshRuns.map((hash) => hash.hash);
      for (let i = first; i < run; i++) runCompressible[i] = compressibleRun(i);
      const freshCompressible = Array.from(runCompressible.subarray(first, run));
      // Runs again whole if PostgreSQL aborts it (a deadlock): it changes nothing outside.
      const owned = database.transaction(async (trx): Promise<Owned> => {
        // Shared with other writers, exclusive to a collection: no blob found here is deleted
        // before this transaction's rows name it.
        await lockContent(database, trx, "shared");
        if (single) await insertSession(trx, runs.length);
        const none = new Set<string>();
        const inRevision = holds ? await ownedByRevision(trx, dialect, session.projectSlug, fresh) : none;
        const rest = inRevision.size === 0 ? fresh : fresh.filter((hash) => !inRevision.has(hash));
        const inSession = holds ? await ownedBySession(trx, dialect, session.projectSlug, rest, now) : none;
        await insertAssets(trx, dialect, session.id, slice, sliceKinds);
        await insertSessionHashes(trx, dialect, session.id, freshRuns, freshCompressible);
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
      inFlight.push({ runs: { first, end: run }, owned });
      if (inFlight.length >= window) account(await settled(inFlight.shift()!));
      // A slice's transaction is a turn of the event loop at most (two of them held it 130 ms on
      // a busy machine).
      if (pacer.due() || index < sliceCount - 1) await pacer.next();
    }
    while (inFlight.length > 0) account(await settled(inFlight.shift()!));
    if (!single) {
      await sql`UPDATE upload_sessions SET asset_hashes = ${runs.length} WHERE id = ${session.id}`.execute(
        database.db,
      );
    }
    if (delta) await insertTombstones(database, session.id, delta.removed, rowsPerSlice, pacer);
  } catch (error) {
    // A slice still in flight would write after the discard.
    await Promise.allSettled(inFlight.map((slice) => slice.owned));
    await discardSession(database, session.id);
    throw error;
  }
  return added
    ? { missing, addedBytes, compressibleSizes, added }
    : { missing, addedBytes, compressibleSizes };
}

/**
 * Removes a session that will not be used (a refused or failed prepare), with its rows, a slice
 * at a time (nobody holds its token); its own row last, so that what a failure leaves is
 * collected when it expires.
 */
export async function discardSession(
  database: PlatformDatabase,
  sessionId: string,
  pacer: Pacer = new Pacer(),
): Promise<void> {
  await deleteSessionRows(database, sessionId, pacer);
  await sql`DELETE FROM upload_sessions WHERE id = ${sessionId}`.execute(database.db);
}

/** The runs a slice writes first (HashRun): runs[first] up to runs[end]. */
interface SliceRuns {
  first: number;
  end: number;
}

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
