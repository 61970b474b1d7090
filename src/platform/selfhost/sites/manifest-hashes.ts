import { type RawBuilder, sql } from "kysely";
import type { Pacer } from "../../../shared/event-loop.js";
import type { PlatformDatabase, SqlDialect } from "../state/platform-db.js";
import { deleteInSlices, type KeyedRows } from "../state/sliced-delete.js";
import { largerCompressibleSql } from "../quotas/quota-charges.js";
import { ROWS_PER_SLICE } from "../sessions/session-rows.js";
import { inOrderedSlices, type OrderedRows } from "./row-slices.js";

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
export function largerCompressible(dialect: SqlDialect): RawBuilder<number> {
  return sql.raw(largerCompressibleSql(dialect));
}

/** A session's hashes (`session_hashes AS h`), in hash order. */
export function sessionHashRows(sessionId: string): OrderedRows {
  return { table: "session_hashes", alias: "h", scope: sql`h.session_id = ${sessionId}`, key: ["hash"] };
}

/**
 * The statement writing the session's hashes in `range` (of sessionHashRows) as the manifest's,
 * compressible when the type an upload declared for it is, else when one of its paths' is (as
 * manifest_files' rows of it are, manifest-rows.ts).
 */
export function sessionHashesInsert(target: { projectSlug: string; id: string }, range: RawBuilder<unknown>) {
  return sql`INSERT INTO manifest_hashes (project_slug, manifest_id, hash, compressible)
    SELECT CAST(${target.projectSlug} AS TEXT), CAST(${target.id} AS TEXT), h.hash,
        COALESCE(h.compressible, h.paths_compressible)
      FROM session_hashes h WHERE ${range} AND h.hash <> '' ORDER BY h.hash`;
}

/**
 * Writes each hash of the session (`session_hashes`, each once) as the manifest's, in hash order,
 * in slices on SQLite. On PostgreSQL a caller with a transaction open over the session's rows runs
 * sessionHashesInsert in it instead (a statement, where a transaction of its own takes four).
 */
export async function writeSessionHashes(
  database: PlatformDatabase,
  target: { projectSlug: string; sessionId: string; id: string },
  pacer: Pacer,
): Promise<void> {
  await inOrderedSlices(database, sessionHashRows(target.sessionId), pacer, async (trx, range) => {
    await sessionHashesInsert(target, range).execute(trx);
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
