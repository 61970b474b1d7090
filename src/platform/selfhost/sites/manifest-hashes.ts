import { sql } from "kysely";
import type { Pacer } from "../../../shared/event-loop.js";
import type { PlatformDatabase, SqlDialect } from "../state/platform-db.js";
import { deleteInSlices, type KeyedRows } from "../state/sliced-delete.js";
import { ROWS_PER_SLICE } from "../sessions/session-rows.js";
import { inOrderedSlices } from "./row-slices.js";

/*
 * A manifest's distinct hashes (`manifest_hashes`, issue 32): what asks which manifests name a
 * hash (the collector, a prepare's ownership, the quota charges) reads them, manifest_files having
 * no index by hash (its rows are written in the order of their paths, manifest-rows.ts). A full
 * manifest's every hash, a delta's those of its rows not removed (a base stays while a delta of it
 * does, so a hash its delta hides is still named). Written with the manifest's rows, before the
 * session naming the same hashes is deleted (at publish), so a blob stays named throughout; deleted
 * with its manifest's rows (manifest-cleanup.ts).
 */

/** The larger of a row's `compressible` and the one an upsert brought, on the engine. */
export function largerCompressible(dialect: SqlDialect) {
  return dialect === "postgres"
    ? sql`GREATEST(manifest_hashes.compressible, excluded.compressible)`
    : sql`MAX(manifest_hashes.compressible, excluded.compressible)`;
}

/**
 * Writes each hash of the session (`session_hashes`, each once) as the manifest's, in hash order,
 * compressible when the type an upload declared for it is, else when one of its paths' is (as
 * manifest_files' rows of it are, manifest-rows.ts).
 */
export async function writeSessionHashes(
  database: PlatformDatabase,
  target: { projectSlug: string; sessionId: string; id: string },
  pacer: Pacer,
): Promise<void> {
  const { projectSlug, sessionId, id } = target;
  const rows = {
    table: "session_hashes",
    alias: "h",
    scope: sql`h.session_id = ${sessionId}`,
    key: ["hash"],
  };
  await inOrderedSlices(database, rows, pacer, async (trx, range) => {
    await sql`INSERT INTO manifest_hashes (project_slug, manifest_id, hash, compressible)
      SELECT CAST(${projectSlug} AS TEXT), CAST(${id} AS TEXT), h.hash,
          COALESCE(h.compressible, h.paths_compressible)
        FROM session_hashes h WHERE ${range} AND h.hash <> '' ORDER BY h.hash`.execute(trx);
    return true;
  });
}

/** Deletes a manifest's hashes (in slices on SQLite, paced by `pacer`). */
export async function deleteManifestHashes(
  database: PlatformDatabase,
  projectSlug: string,
  id: string,
  pacer: Pacer,
): Promise<void> {
  const rows: KeyedRows = {
    table: "manifest_hashes",
    scope: [
      ["project_slug", projectSlug],
      ["manifest_id", id],
    ],
    key: ["hash"],
  };
  await deleteInSlices(database, rows, ROWS_PER_SLICE, pacer);
}
