import { sql } from "kysely";
import type { Pacer } from "../../../shared/event-loop.js";
import { rowBytesSum, rowCharge } from "../quotas/quota-charges.js";
import { firstOf, lockContent, NOT_DURABLE, type PlatformDatabase, rowsOf } from "../state/platform-db.js";
import { insertRows } from "../state/row-insert.js";
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
  const { projectSlug, revisionId, sessionId } = target;
  if (database.dialect === "postgres") return stageInOneStatement(database, target);
  let rowBytes = 0;
  // Keyset over the key of session_assets (session_id, hash, path): each slice one range of it
  // (SQLite searches the index by the row value of the columns after the equal one).
  let after = { hash: "", path: "" };
  for (;;) {
    const rows = await database.transaction(async (trx) => {
      // As a prepare does: no blob these rows name is collected before they name it.
      await lockContent(database, trx, "shared");
      const slice = await rowsOf(
        trx,
        sql<{ path: string; hash: string; content_type: string; compressible: number | string }>`
          SELECT a.path, a.hash, COALESCE(h.media_type, a.content_type) AS content_type,
            COALESCE(h.compressible, a.compressible) AS compressible
          FROM session_assets a
          LEFT JOIN session_hashes h ON h.session_id = a.session_id AND h.hash = a.hash
          WHERE a.session_id = ${sessionId} AND (a.hash, a.path) > (${after.hash}, ${after.path})
          ORDER BY a.hash, a.path LIMIT ${ROWS_PER_SLICE}`,
      );
      if (slice.length === 0) return slice;
      await insertRows(
        trx,
        database.dialect,
        "INSERT INTO revision_files (project_slug, revision_id, path, hash, content_type, compressible)",
        slice.map((row) => [
          projectSlug,
          revisionId,
          row.path,
          row.hash,
          row.content_type,
          Number(row.compressible),
        ]),
        "ON CONFLICT DO NOTHING",
      );
      return slice;
      // Made durable by the publish's own transaction, which comes after (and lets readers see them).
    }, NOT_DURABLE);
    for (const row of rows) rowBytes += rowCharge(row.path);
    if (rows.length < ROWS_PER_SLICE) return rowBytes;
    const last = rows[rows.length - 1]!;
    after = { hash: last.hash, path: last.path };
    // A slice's transaction is a turn of the event loop at most.
    await pacer.next();
  }
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
