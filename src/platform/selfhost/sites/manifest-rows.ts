import { type RawBuilder, sql } from "kysely";
import type { Pacer } from "../../../shared/event-loop.js";
import { rowBytesSum } from "../quotas/quota-charges.js";
import {
  changesOf,
  type Executor,
  firstOf,
  lockContent,
  type PlatformDatabase,
  type SqlDialect,
} from "../state/platform-db.js";
import { deleteInSlices } from "../state/sliced-delete.js";
import { ROWS_PER_SLICE } from "../sessions/session-rows.js";
import { inOrderedSlices, type OrderedRows } from "./row-slices.js";
import {
  deleteManifestHashes,
  largerCompressible,
  sessionHashesInsert,
  sessionHashRows,
  writeSessionHashes,
} from "./manifest-hashes.js";

// The rows of a manifest written at publish from its upload session (manifest-staging.ts): whole,
// or as a delta of a full manifest.

/** A delta is kept when it holds at most this share of its base's files. */
export const MAX_DELTA = 0.25;

/** The manifest being written, from which session. */
export interface Target {
  projectSlug: string;
  sessionId: string;
  id: string;
  /** The charge of the session's rows, summed range by range as they are read. */
  rowBytes: number;
}

/** Adds the charge of the session's rows in `range` to the target's. */
async function charge(trx: Executor, dialect: SqlDialect, target: Target, range: RawBuilder<unknown>) {
  const row = await firstOf(
    trx,
    sql<{ n: number | string }>`SELECT ${rowBytesSum(dialect)} AS n FROM session_assets a WHERE ${range}`,
  );
  target.rowBytes += Number(row!.n);
}

// A session row's file as the revision serves it: a type an upload declared for the hash wins
// over its path's (session-hashes.ts).
export const SESSION_FILES = sql`FROM session_assets a
  LEFT JOIN session_hashes h ON h.session_id = a.session_id AND h.hash = a.hash`;
export const TYPE = sql`COALESCE(h.media_type, a.content_type)`;
export const COMPRESSIBLE = sql`COALESCE(h.compressible, a.compressible)`;

/** A session's rows (`session_assets AS a`), read in slices in the order of their key. */
export function sessionAssetRows(sessionId: string): OrderedRows {
  return {
    table: "session_assets",
    alias: "a",
    scope: sql`a.session_id = ${sessionId}`,
    key: ["path"],
  };
}

/**
 * Copies every file of the session into the manifest, in the order of their paths (both tables'
 * key: each page written once), then its hashes (manifest-hashes.ts).
 */
export async function writeWhole(database: PlatformDatabase, target: Target, pacer: Pacer): Promise<void> {
  const { projectSlug, sessionId, id } = target;
  const rows = sessionAssetRows(sessionId);
  const postgres = database.dialect === "postgres";
  await inOrderedSlices(database, rows, pacer, async (trx, range) => {
    await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible)
      SELECT CAST(${projectSlug} AS TEXT), CAST(${id} AS TEXT), a.path, a.hash, ${TYPE}, ${COMPRESSIBLE}
      ${SESSION_FILES} WHERE ${range} ORDER BY a.path`.execute(trx);
    await charge(trx, database.dialect, target, range);
    // PostgreSQL's one range is the whole session: its hashes go in the same transaction.
    if (postgres) await sessionHashesInsert(target, sessionHashRows(sessionId).scope).execute(trx);
    return true;
  });
  if (!postgres) await writeSessionHashes(database, target, pacer);
}

/**
 * Writes the session's files that differ from the base's (added or changed), their hashes, and a
 * tombstone for each path of the base the session lacks, and returns how many rows; gives up (its
 * rows deleted, undefined) once they are more than MAX_DELTA of the base's files. On SQLite, range by range,
 * every probe a seek (the base's row by its path, the session's by its path, the delta's by its
 * path); on PostgreSQL, one EXCEPT each (hashed or sorted whatever the planner thinks of a
 * fresh table: the probes as NOT EXISTS outran the statement timeout for 20,000 rows), both and
 * the charge in one statement.
 */
export async function writeDelta(
  database: PlatformDatabase,
  target: Target,
  base: { id: string; fileCount: number },
  pacer: Pacer,
): Promise<number | undefined> {
  const { projectSlug, sessionId, id } = target;
  const most = Math.floor(base.fileCount * MAX_DELTA);
  let written = 0;
  const session = sessionAssetRows(sessionId);
  const postgres = database.dialect === "postgres";
  const changed = (range: RawBuilder<unknown>) =>
    postgres
      ? sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible)
          SELECT CAST(${projectSlug} AS TEXT), CAST(${id} AS TEXT), c.path, c.hash, c.content_type, c.compressible
          FROM (SELECT a.path, a.hash, ${TYPE} AS content_type, ${COMPRESSIBLE} AS compressible
              ${SESSION_FILES} WHERE ${range}
            EXCEPT SELECT path, hash, content_type, compressible FROM manifest_files
              WHERE project_slug = ${projectSlug} AND manifest_id = ${base.id}) AS c`
      : sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible)
          SELECT ${projectSlug}, ${id}, a.path, a.hash, ${TYPE}, ${COMPRESSIBLE}
          ${SESSION_FILES} WHERE ${range} AND NOT EXISTS (SELECT 1 FROM manifest_files b
            WHERE b.project_slug = ${projectSlug} AND b.manifest_id = ${base.id} AND b.path = a.path
              AND b.hash = a.hash AND b.content_type = ${TYPE} AND b.compressible = ${COMPRESSIBLE})`;
  const removed = (range: RawBuilder<unknown>) =>
    postgres
      ? sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
          SELECT CAST(${projectSlug} AS TEXT), CAST(${id} AS TEXT), g.path, '', '', 0, 1
          FROM (SELECT b.path FROM manifest_files b WHERE ${range}
            EXCEPT SELECT path FROM session_assets WHERE session_id = ${sessionId}) AS g`
      : sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
        SELECT b.project_slug, ${id}, b.path, '', '', 0, 1 FROM manifest_files b
        WHERE ${range} AND NOT EXISTS (SELECT 1 FROM session_assets a
            WHERE a.session_id = ${sessionId} AND a.hash = b.hash AND a.path = b.path)
          AND NOT EXISTS (SELECT 1 FROM manifest_files d
            WHERE d.project_slug = b.project_slug AND d.manifest_id = ${id} AND d.path = b.path)`;
  // The hashes of the rows `changed` wrote in the range (a seek each, grouped by hash); a hash
  // whose rows are in two ranges comes twice, kept once.
  const hashesOf = (range: RawBuilder<unknown>) =>
    sql`INSERT INTO manifest_hashes (project_slug, manifest_id, hash, compressible)
      SELECT ${projectSlug}, ${id}, a.hash, MAX(f.compressible) FROM session_assets a
        JOIN manifest_files f ON f.project_slug = ${projectSlug} AND f.manifest_id = ${id}
          AND f.path = a.path AND f.hash = a.hash
      WHERE ${range} GROUP BY a.hash
      ON CONFLICT (project_slug, manifest_id, hash) DO UPDATE SET compressible = ${largerCompressible(database.dialect)}`;
  const baseRows = {
    table: "manifest_files",
    alias: "b",
    scope: sql`b.project_slug = ${projectSlug} AND b.manifest_id = ${base.id}`,
    key: ["path"],
  };
  const small = postgres
    ? // One range each there (row-slices.ts): both inserts and the charge in one statement.
      await database.transaction(async (trx) => {
        await lockContent(database, trx, "shared");
        const row = await firstOf(
          trx,
          sql<{ written: number | string; row_bytes: number | string }>`WITH
              changed AS (${changed(session.scope)} RETURNING hash, compressible),
              hashes AS (INSERT INTO manifest_hashes (project_slug, manifest_id, hash, compressible)
                SELECT CAST(${projectSlug} AS TEXT), CAST(${id} AS TEXT), hash, MAX(compressible)
                FROM changed GROUP BY hash),
              removed AS (${removed(baseRows.scope)} RETURNING 1)
            SELECT (SELECT COUNT(*) FROM changed) + (SELECT COUNT(*) FROM removed) AS written,
              (SELECT ${rowBytesSum(database.dialect)} FROM session_assets a WHERE ${session.scope}) AS row_bytes`,
        );
        written += Number(row!.written);
        target.rowBytes += Number(row!.row_bytes);
        return written <= most;
      })
    : (await inOrderedSlices(database, session, pacer, async (trx, range) => {
        const changes = await changesOf(trx, changed(range));
        written += changes;
        if (changes > 0) await hashesOf(range).execute(trx);
        await charge(trx, database.dialect, target, range);
        return written <= most;
      })) &&
      (await inOrderedSlices(database, baseRows, pacer, async (trx, range) => {
        written += await changesOf(trx, removed(range));
        return written <= most;
      }));
  if (small) return written;
  await deleteManifestHashes(database, projectSlug, id, pacer);
  const rows = {
    table: "manifest_files",
    scope: [
      ["project_slug", projectSlug],
      ["manifest_id", id],
    ] as [string, string][],
    key: ["path"],
  };
  await deleteInSlices(database, rows, ROWS_PER_SLICE, pacer);
  return undefined;
}
