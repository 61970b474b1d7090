import { sql } from "kysely";
import type { Pacer } from "../../../shared/event-loop.js";
import { type PlatformDatabase, rowsOf } from "../state/platform-db.js";
import { deleteInSlices, type KeyedRows } from "../state/sliced-delete.js";
import { ROWS_PER_SLICE } from "../sessions/session-rows.js";
import { chargeNoLongerExact } from "../quotas/project-charges.js";
import { deleteManifestHashes } from "./manifest-hashes.js";

/*
 * A manifest goes once no revision names it, no delta has it for base and no unpublished session
 * is a delta of it (sessions/delta-open.ts; an expired one until the sweep deletes it): after a
 * prune, a publish that failed (what it staged), or a crash between staging and publishing (found
 * by the next cleanup). Its hashes and files go first, in slices paced by the pacer, then its row, so a crash
 * between leaves a row the next cleanup finds. Callers hold the project's lock (publishes take
 * turns, and prepares with them). The project's recorded charge is no longer taken as the full sum
 * once one goes (a prune sums it again; a publish, on that mark).
 */

/** Deletes the project's manifests that nothing names (a base once its last delta and session went). */
export async function deleteUnreferencedManifests(
  database: PlatformDatabase,
  projectSlug: string,
  pacer: Pacer,
): Promise<void> {
  for (;;) {
    const doomed = await rowsOf(
      database.db,
      sql<{ id: string }>`SELECT m.id FROM manifests m WHERE m.project_slug = ${projectSlug}
        AND NOT EXISTS (SELECT 1 FROM revisions r WHERE r.project_slug = m.project_slug AND r.manifest_id = m.id)
        AND NOT EXISTS (SELECT 1 FROM manifests d WHERE d.project_slug = m.project_slug AND d.base_id = m.id)
        AND NOT EXISTS (SELECT 1 FROM upload_sessions u WHERE u.project_slug = m.project_slug
          AND u.base_manifest_id = m.id AND u.published_revision IS NULL)`,
    );
    if (doomed.length === 0) return;
    await chargeNoLongerExact(database.db, projectSlug);
    for (const { id } of doomed) {
      await deleteManifestHashes(database, projectSlug, id, pacer);
      const rows: KeyedRows = {
        table: "manifest_files",
        scope: [
          ["project_slug", projectSlug],
          ["manifest_id", id],
        ],
        key: ["path"],
      };
      await deleteInSlices(database, rows, ROWS_PER_SLICE, pacer);
      await sql`DELETE FROM manifests WHERE project_slug = ${projectSlug} AND id = ${id}`.execute(
        database.db,
      );
    }
  }
}

/** Removes every manifest of a project: call once its `revisions` rows are gone. */
export async function deleteProjectManifests(
  database: PlatformDatabase,
  projectSlug: string,
  pacer: Pacer,
): Promise<void> {
  const hashes: KeyedRows = {
    table: "manifest_hashes",
    scope: [["project_slug", projectSlug]],
    key: ["manifest_id", "hash"],
  };
  await deleteInSlices(database, hashes, ROWS_PER_SLICE, pacer);
  const rows: KeyedRows = {
    table: "manifest_files",
    scope: [["project_slug", projectSlug]],
    key: ["manifest_id", "path"],
  };
  await deleteInSlices(database, rows, ROWS_PER_SLICE, pacer);
  await sql`DELETE FROM manifests WHERE project_slug = ${projectSlug}`.execute(database.db);
}
