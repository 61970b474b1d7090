import { sql } from "kysely";
import type { ManifestEntry } from "../../../core/manifest.js";
import { forEachPaced, type Pacer } from "../../../shared/event-loop.js";
import { rowCharge } from "../quotas/quota-charges.js";
import { fullBaseOf } from "../sites/manifest-staging.js";
import { MAX_DELTA } from "../sites/manifest-rows.js";
import { insertMany } from "../state/column-insert.js";
import { NOT_DURABLE, type PlatformDatabase, rowsOf, slicesOf } from "../state/platform-db.js";

/*
 * Delta sessions (issue 32): a redeploy of a few paths of a large site wrote a session row per
 * path (10,000 for 100 changed), looked every hash up, and its publish compared them all with the
 * base again. A session of a project with a full manifest B (its production's base, else its latest)
 * is opened as a delta of B when small: B's rows are read once and compared here, and the session
 * writes rows only for the paths added or changed, and a tombstone (hash empty) per path of B it
 * lacks. An unchanged path's content is B's, held by B's revision (one the project keeps, or B kept
 * for this session: manifest-cleanup.ts), so it is neither missing nor added to the quota, as the
 * whole session's look-ups would find; unless its blob is damaged, when it is a row of the session
 * (asked for again). The publish writes the delta straight from these rows (manifest-staging.ts).
 * Prepares, publishes and prunes of a project take turns (the API's project lock): B stays as read.
 */

/**
 * Rows of the base read a statement: on SQLite a few milliseconds of this thread each; on
 * PostgreSQL, whose rows this thread only receives, a page's map is as long a turn.
 */
const BASE_ROWS_PER_READ = { sqlite: 1_000, postgres: 10_000 } as const;
/** Damaged blobs a delta looks at; past this many (a failing disk), a session is opened whole. */
const MOST_DAMAGED = 10_000;
/** Paths of bases remembered, across them (some 20 MB at most: a 100,000-file site's). */
const BASE_CACHE_PATHS = 100_000;
/** The bases remembered, by database (`project/id`). */
const caches = new WeakMap<PlatformDatabase, Map<string, ReadonlyMap<string, string>>>();

/** How a session is recorded as a delta of its project's full manifest. */
export interface DeltaPlan {
  baseId: string;
  /** The entries the session writes: added, changed, or whose blob is damaged. */
  changed: ManifestEntry[];
  /** Paths of the base the manifest lacks (a tombstone each). */
  removed: string[];
  /** The files of the whole manifest, and the charge of their rows (quota-charges.ts). */
  fileCount: number;
  rowBytes: number;
}

/**
 * The session's delta of the project's full manifest, or undefined when it has none or the delta
 * is over MAX_DELTA of its files (the session is opened whole, as before). Paced by `pacer`.
 */
export async function planDelta(
  database: PlatformDatabase,
  projectSlug: string,
  entries: readonly ManifestEntry[],
  pacer: Pacer,
): Promise<DeltaPlan | undefined> {
  const base = await fullBaseOf(database.db, projectSlug, true);
  if (base === undefined) return undefined;
  const most = Math.floor(base.fileCount * MAX_DELTA);
  // Each path added or removed is a row of the delta at least.
  if (Math.abs(entries.length - base.fileCount) > most) return undefined;
  if (base.damaged > MOST_DAMAGED) return undefined;
  const damaged =
    base.damaged === 0
      ? []
      : await rowsOf(database.db, sql<{ hash: string }>`SELECT hash FROM blobs WHERE damaged <> 0`);
  const broken = new Set(damaged.map((row) => row.hash));
  const held = await baseFiles(database, projectSlug, base, pacer);
  const changed: ManifestEntry[] = [];
  // The base's paths the manifest has (a set: a path listed twice is counted once).
  const kept = new Set<string>();
  let rowBytes = 0;
  for (let i = 0; i < entries.length; i++) {
    // The time read every 256 entries (forEachPaced's rhythm); a change too large ends it early.
    if ((i & 255) === 255 && pacer.due()) await pacer.next();
    const entry = entries[i]!;
    rowBytes += rowCharge(entry.path);
    const hash = held.get(entry.path);
    if (hash !== undefined) kept.add(entry.path);
    if (hash === entry.hash && !broken.has(hash)) continue;
    changed.push(entry);
    if (changed.length > most) return undefined;
  }
  if (changed.length + held.size - kept.size > most) return undefined;
  const removed: string[] = [];
  if (kept.size < held.size) {
    await forEachPaced([...held.keys()], pacer, (path) => {
      if (!kept.has(path)) removed.push(path);
    });
  }
  return { baseId: base.id, changed, removed, fileCount: entries.length, rowBytes };
}

/**
 * The base's files, path to hash: remembered by its id (a complete manifest never changes, and an
 * id is never used again), the most recently used first, BASE_CACHE_PATHS paths at most in all.
 * Reading 10,000 rows cost some 30-60 ms of this thread a prepare, on SQLite.
 */
async function baseFiles(
  database: PlatformDatabase,
  projectSlug: string,
  base: { id: string; fileCount: number },
  pacer: Pacer,
): Promise<ReadonlyMap<string, string>> {
  let cache = caches.get(database);
  if (cache === undefined) caches.set(database, (cache = new Map()));
  const key = `${projectSlug}/${base.id}`;
  const known = cache.get(key);
  if (known !== undefined) {
    // Most recently used last (a Map keeps the order of insertion).
    cache.delete(key);
    cache.set(key, known);
    return known;
  }
  const held = await baseRows(database, projectSlug, base, pacer);
  if (held.size > BASE_CACHE_PATHS) return held;
  cache.set(key, held);
  let paths = 0;
  for (const files of cache.values()) paths += files.size;
  for (const [oldest, files] of cache) {
    if (paths <= BASE_CACHE_PATHS) break;
    cache.delete(oldest);
    paths -= files.size;
  }
  return held;
}

/**
 * The base's files, path to hash, read in pages by path, the event loop free between them when
 * `pacer` says a slice is due; a full manifest's count of files says when the last was read.
 */
async function baseRows(
  database: PlatformDatabase,
  projectSlug: string,
  base: { id: string; fileCount: number },
  pacer: Pacer,
): Promise<Map<string, string>> {
  const held = new Map<string, string>();
  const limit = BASE_ROWS_PER_READ[database.dialect];
  let after: string | undefined;
  for (;;) {
    const rows = await rowsOf(
      database.db,
      sql<{ path: string; hash: string }>`SELECT path, hash FROM manifest_files
        WHERE project_slug = ${projectSlug} AND manifest_id = ${base.id} AND removed = 0
          ${after === undefined ? sql`` : sql`AND path > ${after}`}
        ORDER BY path LIMIT ${limit}`,
    );
    for (const row of rows) held.set(row.path, row.hash);
    if (rows.length < limit || held.size >= base.fileCount) return held;
    after = rows[rows.length - 1]!.path;
    if (pacer.due()) await pacer.next();
  }
}

/**
 * Writes the tombstones of a delta session, `rowsPerSlice` a transaction, the event loop free
 * between them when `pacer` says a slice is due; made durable by the admission's commit, as the
 * session's other rows are (upload-sessions.ts).
 */
export async function insertTombstones(
  database: PlatformDatabase,
  sessionId: string,
  paths: readonly string[],
  rowsPerSlice: number,
  pacer: Pacer,
): Promise<void> {
  for (const slice of slicesOf(paths, rowsPerSlice)) {
    await database.transaction(async (trx) => {
      // A row already there is this one, from a slice run again.
      await insertMany(
        trx,
        database.dialect,
        "INSERT INTO session_assets (session_id, path, hash, size, content_type, compressible)",
        ["text", "text", "text", "bigint", "text", "integer"],
        slice.map((path) => [sessionId, path, "", 0, "", 0]),
        "ON CONFLICT DO NOTHING",
      );
    }, NOT_DURABLE);
    if (pacer.due()) await pacer.next();
  }
}
