import { type RawBuilder, sql } from "kysely";
import type { StoredBlob } from "../../../core/uploaded-bucket.js";
import type { Pacer } from "../../../shared/event-loop.js";
import { deleteInSlices } from "../state/sliced-delete.js";
import { insertColumns, insertMany } from "../state/column-insert.js";
import { insertParameters } from "../state/row-insert.js";
import { arrayLiteral } from "../state/array-literal.js";
import type { RowColumns } from "./path-order.js";
import type { EntryTypes } from "./entry-types.js";
import type { PlatformTables } from "../state/platform-tables.js";
import {
  type Executor,
  forUpdate,
  type PlatformDatabase,
  rowsOf,
  slicesOf,
  type SqlDialect,
  type TransactionOptions,
} from "../state/platform-db.js";

// The statements an upload session writes its rows with, many rows at a time (upload-sessions.ts).

export type { StoredBlob };

/**
 * How long one transaction of a large session's rows may take before the event loop gets a turn;
 * short, because its commit (the WAL's fsync) costs about as much again as writing the rows.
 */
export const WRITE_SLICE_MS = 5;
/** Manifest rows written per statement: 6 parameters each, far under any engine's limit. */
export const ROWS_PER_STATEMENT = 1_000;
/**
 * Manifest rows one transaction of a large session writes, copies or deletes before the event loop
 * gets a turn: a few milliseconds of SQLite's work on an idle machine, and a commit (the WAL's
 * fsync) of a few hundred pages. 1,000 rows held the thread up to 160 ms on a busy one (issue 31).
 */
export const ROWS_PER_SLICE = 500;
/**
 * Manifest rows a slice of prepare writes on PostgreSQL, where the work is the server's and not
 * this thread's (rows go as one array a column, column-insert.ts): ten times SQLite's, so that a
 * session costs a constant few statements per 5,000 paths (issue 32: a 10,000-file first
 * deploy's prepare took 163 statements).
 */
export const POSTGRES_ROWS_PER_SLICE = 5_000;
/** Rows of one or two columns written per statement: one statement for a bucket's, or a slice's. */
const NARROW_ROWS_PER_STATEMENT = 5_000;

/**
 * `column` is one of `hashes`: on PostgreSQL one array parameter (its literal built in one join,
 * array-literal.ts), on SQLite a list of parameters (its slices are short).
 */
export function hashIn(dialect: SqlDialect, column: string, hashes: string[]): RawBuilder<unknown> {
  return dialect === "postgres"
    ? sql`${sql.ref(column)} = ANY(CAST(${arrayLiteral(hashes)} AS TEXT[]))`
    : sql`${sql.ref(column)} IN (${sql.join(hashes)})`;
}

/**
 * Inserts the rows of a pack's blobs unless held; a held one is looked at only then (a damaged
 * one is repaired to this copy, its old pack's bytes released). Returns the pack's live bytes.
 */
export async function recordBlobs(
  trx: Executor,
  dialect: SqlDialect,
  pack: string,
  blobs: StoredBlob[],
  now: number,
): Promise<number> {
  let live = 0;
  // In the order of their hashes: two uploads of the same blobs wait for each other's rows in
  // one order, never each for the other's (a deadlock, on PostgreSQL).
  const ordered = [...blobs].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  for (const slice of slicesOf(ordered, ROWS_PER_STATEMENT)) {
    // Its text kept by shape, not compiled by Kysely (row-insert.ts): a bucket's 2,000 rows of
    // six values as nodes cost this thread about as much as SQLite's work on them (issue 32).
    const parameters = new Array<unknown>(slice.length * 6);
    let at = 0;
    for (const blob of slice) {
      parameters[at++] = blob.hash;
      parameters[at++] = blob.size;
      parameters[at++] = now;
      parameters[at++] = pack;
      parameters[at++] = blob.offset;
      parameters[at++] = 0;
    }
    const inserted = await insertParameters<{ hash: string }>(
      trx,
      dialect,
      "INSERT INTO blobs (hash, size, created_at, pack, pack_offset, damaged)",
      slice.length,
      6,
      parameters,
      "ON CONFLICT (hash) DO NOTHING RETURNING hash",
    );
    const fresh = new Set(inserted.map((row) => row.hash));
    const held = slice.filter((blob) => !fresh.has(blob.hash));
    for (const blob of slice) if (fresh.has(blob.hash)) live += blob.size;
    if (held.length === 0) continue;
    // Locked (on PostgreSQL): of two uploads repairing one blob, the second finds it whole.
    const damaged = await rowsOf(
      trx,
      sql<{ hash: string; pack: string | null }>`SELECT hash, pack FROM blobs
        WHERE hash IN (${sql.join(held.map((blob) => blob.hash))}) AND damaged <> 0 ${forUpdate(dialect)}`,
    );
    const byHash = new Map(held.map((blob) => [blob.hash, blob]));
    for (const row of damaged) {
      const blob = byHash.get(row.hash)!;
      await sql`UPDATE blobs SET pack = ${pack}, pack_offset = ${blob.offset}, damaged = 0
        WHERE hash = ${blob.hash}`.execute(trx);
      if (row.pack !== null) {
        await sql`UPDATE packs SET live_bytes = live_bytes - ${blob.size} WHERE id = ${row.pack}`.execute(
          trx,
        );
      }
      live += blob.size;
    }
  }
  return live;
}

/**
 * Writes manifest rows of a session (`rows`, by column), each path with the media type of its
 * extension and its compressibleFlag, as `known` has them (typesOfPaced, taken once for every
 * pass of a prepare).
 */
export async function insertAssets(
  trx: Executor,
  dialect: SqlDialect,
  sessionId: string,
  rows: RowColumns,
  known: EntryTypes,
): Promise<void> {
  const { paths, hashes, sizes } = rows;
  const { types, compressible } = known;
  // No ON CONFLICT: a manifest's paths are unique, each is written by one slice, and a slice run
  // again (a deadlock, on PostgreSQL) was rolled back whole first. PostgreSQL inserts each row of
  // an ON CONFLICT statement speculatively: a 100,000-entry prepare's rows cost its backend twice
  // the CPU (1.3 s against 0.7 s).
  await insertColumns(
    trx,
    dialect,
    "INSERT INTO session_assets (session_id, path, hash, size, content_type, compressible)",
    ["text", "text", "text", "bigint", "text", "integer"],
    paths.length,
    [{ same: sessionId }, paths, hashes, sizes, types, compressible],
  );
}

/**
 * Deletes a session's manifest rows (`session_assets`, `session_hashes`, `session_blobs`),
 * ROWS_PER_SLICE a statement, the event loop free between them when `pacer` says a slice is
 * due: one statement deleting 100,000 rows would hold the thread the service shares (on PostgreSQL,
 * one statement for all three). The session's own row stays (the caller's to delete or keep).
 */
export async function deleteSessionRows(
  database: PlatformDatabase,
  sessionId: string,
  pacer: Pacer,
  options: TransactionOptions = {},
): Promise<void> {
  if (database.dialect === "postgres") {
    // PostgreSQL works apart from this thread (sliced-delete.ts): the three tables in one statement.
    await sql`WITH assets AS (DELETE FROM session_assets WHERE session_id = ${sessionId}),
        hashes AS (DELETE FROM session_hashes WHERE session_id = ${sessionId})
      DELETE FROM session_blobs WHERE session_id = ${sessionId}`.execute(database.db);
    return;
  }
  const scope: [string, string][] = [["session_id", sessionId]];
  for (const [table, [, ...key]] of Object.entries(SESSION_ROW_KEYS)) {
    await deleteInSlices(database, { table, scope, key }, ROWS_PER_SLICE, pacer, options);
  }
}

/**
 * The tables of a session's manifest rows, and the columns that name one row of each (its key,
 * `session_id` first), in the order they are deleted: a hash's session_hashes row after the rows
 * naming it. The collector deletes expired sessions' rows by the same keys (session-expiry.ts).
 */
export const SESSION_ROW_KEYS = {
  session_assets: ["session_id", "path"],
  session_hashes: ["session_id", "hash"],
  session_blobs: ["session_id", "hash"],
} as const satisfies { [T in keyof PlatformTables]?: readonly (keyof PlatformTables[T] & string)[] };

/** A table of a session's manifest rows. */
export type SessionRowTable = keyof typeof SESSION_ROW_KEYS;

/** Records that the session has these hashes (repeats are kept once). */
export async function insertSessionBlobs(
  trx: Executor,
  dialect: SqlDialect,
  sessionId: string,
  hashes: string[],
): Promise<void> {
  for (const slice of slicesOf([...new Set(hashes)], NARROW_ROWS_PER_STATEMENT)) {
    await insertMany(
      trx,
      dialect,
      "INSERT INTO session_blobs (session_id, hash)",
      ["text", "text"],
      slice.map((hash) => [sessionId, hash]),
      "ON CONFLICT (session_id, hash) DO NOTHING",
    );
  }
}
