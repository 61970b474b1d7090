import { sql } from "kysely";
import type { Pacer } from "../../../shared/event-loop.js";
import { rowBytesSum } from "../quotas/quota-charges.js";
import {
  type Executor,
  firstOf,
  lockContent,
  NOT_DURABLE,
  type PlatformDatabase,
} from "../state/platform-db.js";
import { deleteInSlices, type KeyedRows } from "../state/sliced-delete.js";
import { ROWS_PER_SLICE } from "../sessions/session-rows.js";

/*
 * A revision's files are copied from its upload session before it is published, a slice of
 * ROWS_PER_SLICE rows a transaction, the event loop free between slices: one statement copying
 * every row held the thread the API, uploads and the edge share for 216 ms for 20,000 rows, a
 * second for 100,000 (issue 31). No reader sees them meanwhile: the edge finds a revision through
 * its `revisions` row (production, aliases and revision URLs alike), which the publish's one
 * transaction writes last, with the site's pointers; until then the rows only keep their blobs alive.
 */

/**
 * Removes every file of a project's revisions, in slices paced by `pacer`: call once its
 * `revisions` rows are gone (no reader finds the files then).
 */
export async function deleteProjectFiles(
  database: PlatformDatabase,
  projectSlug: string,
  pacer: Pacer,
): Promise<void> {
  const rows = {
    table: "revision_files",
    scope: [["project_slug", projectSlug]],
    key: ["revision_id", "path"],
  };
  await deleteInSlices(database, rows as KeyedRows, ROWS_PER_SLICE, pacer);
}

/**
 * Copies the session's manifest rows into `revision_files` for the revision (a type an upload
 * declared for the hash wins over its path's, session-hashes.ts), in slices paced by `pacer`; rows
 * there already (an attempt run again) are kept. Returns the charge of the rows
 * (`revisions.row_bytes`, quota-charges.ts).
 */
export async function stageRevisionFiles(
  database: PlatformDatabase,
  target: { projectSlug: string; revisionId: string; sessionId: string },
  pacer: Pacer,
): Promise<number> {
  if (database.dialect === "postgres") return stageInOneStatement(database, target);
  let rowBytes = 0;
  // Keyset over the key of session_assets (session_id, hash, path): each slice one range of it
  // (SQLite searches the index by the row value of the columns after the equal one), copied by
  // SQLite itself (read into JavaScript and written back, the slices of a 50,000-file publish
  // took 1.6 s of the thread in a CPU profile; copied here, 1.0 to 1.3 s).
  let after = { hash: "", path: "" };
  for (;;) {
    const slice = await database.transaction((trx) => copySlice(trx, target, after), NOT_DURABLE);
    // Made durable by the publish's own transaction, which comes after (and lets readers see them).
    rowBytes += slice.bytes;
    if (slice.last === undefined) return rowBytes;
    after = slice.last;
    // A slice's transaction is a turn of the event loop at most.
    await pacer.next();
  }
}

/**
 * Copies the ROWS_PER_SLICE manifest rows of the session that follow `after` (in the order of
 * session_assets' key) into `revision_files`, on SQLite (whose one writer at a time keeps the
 * collector out, as PostgreSQL's content lock does); returns their charge and the last one's key, none
 * when no row is left after them.
 */
async function copySlice(
  trx: Executor,
  target: { projectSlug: string; revisionId: string; sessionId: string },
  after: { hash: string; path: string },
): Promise<{ bytes: number; last: { hash: string; path: string } | undefined }> {
  const { projectSlug, revisionId, sessionId } = target;
  // The slice's last key: the ROWS_PER_SLICE-th after `after`; none when fewer are left.
  const last = await firstOf(
    trx,
    sql<{ hash: string; path: string }>`SELECT hash, path FROM session_assets
      WHERE session_id = ${sessionId} AND (hash, path) > (${after.hash}, ${after.path})
      ORDER BY hash, path LIMIT 1 OFFSET ${ROWS_PER_SLICE - 1}`,
  );
  const range = sql`a.session_id = ${sessionId} AND (a.hash, a.path) > (${after.hash}, ${after.path})
    ${last === undefined ? sql`` : sql`AND (a.hash, a.path) <= (${last.hash}, ${last.path})`}`;
  await sql`INSERT INTO revision_files (project_slug, revision_id, path, hash, content_type, compressible)
    SELECT ${projectSlug}, ${revisionId}, a.path, a.hash, COALESCE(h.media_type, a.content_type),
      COALESCE(h.compressible, a.compressible)
    FROM session_assets a
    LEFT JOIN session_hashes h ON h.session_id = a.session_id AND h.hash = a.hash
    WHERE ${range} ON CONFLICT DO NOTHING`.execute(trx);
  const charge = await firstOf(
    trx,
    sql<{ n: number | string }>`SELECT ${rowBytesSum("sqlite")} AS n FROM session_assets a WHERE ${range}`,
  );
  return { bytes: Number(charge!.n), last };
}

/**
 * `stageRevisionFiles` on PostgreSQL, which works apart from this thread: one statement copies the
 * rows (no row comes here), one more sums their charge. Sliced, each slice's ordered read sorted
 * every row of a fresh table, whose planner has no statistics yet: a minute for 100,000 rows.
 */
async function stageInOneStatement(
  database: PlatformDatabase,
  target: { projectSlug: string; revisionId: string; sessionId: string },
): Promise<number> {
  const { projectSlug, revisionId, sessionId } = target;
  return database.transaction(async (trx) => {
    await lockContent(database, trx, "shared");
    await sql`INSERT INTO revision_files (project_slug, revision_id, path, hash, content_type, compressible)
      SELECT CAST(${projectSlug} AS TEXT), CAST(${revisionId} AS TEXT), a.path, a.hash,
        COALESCE(h.media_type, a.content_type), COALESCE(h.compressible, a.compressible)
      FROM session_assets a
      LEFT JOIN session_hashes h ON h.session_id = a.session_id AND h.hash = a.hash
      WHERE a.session_id = ${sessionId} ON CONFLICT DO NOTHING`.execute(trx);
    const row = await firstOf(
      trx,
      sql<{ n: number | string }>`SELECT ${rowBytesSum(database.dialect)} AS n
        FROM session_assets WHERE session_id = ${sessionId}`,
    );
    return Number(row!.n);
  });
}

/**
 * Removes the files of a revision that has no `revisions` row (no reader finds them): staged for a
 * publish that failed, or of a revision pruned; in slices paced by `pacer`. Never those of a
 * revision that is published.
 */
export async function deleteUnpublishedFiles(
  database: PlatformDatabase,
  projectSlug: string,
  revisionId: string,
  pacer: Pacer,
): Promise<void> {
  // Publishes of a project take turns (the API's project lock): none makes it published meanwhile.
  if (await isPublished(database, projectSlug, revisionId)) return;
  const rows: KeyedRows = {
    table: "revision_files",
    scope: [
      ["project_slug", projectSlug],
      ["revision_id", revisionId],
    ],
    key: ["path"],
  };
  await deleteInSlices(database, rows, ROWS_PER_SLICE, pacer);
}

/** Whether the project has the revision published (its `revisions` row). */
export async function isPublished(
  database: PlatformDatabase,
  projectSlug: string,
  revisionId: string,
): Promise<boolean> {
  const row = await firstOf(
    database.db,
    sql`SELECT 1 AS published FROM revisions WHERE project_slug = ${projectSlug} AND revision_id = ${revisionId}`,
  );
  return row !== undefined;
}
