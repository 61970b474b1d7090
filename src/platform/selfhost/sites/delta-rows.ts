import { sql } from "kysely";
import type { Pacer } from "../../../shared/event-loop.js";
import { changesOf, type PlatformDatabase } from "../state/platform-db.js";
import { inOrderedSlices } from "./row-slices.js";
import { sessionHashesInsert, sessionHashRows, writeSessionHashes } from "./manifest-hashes.js";
import { COMPRESSIBLE, SESSION_FILES, sessionAssetRows, type Target, TYPE } from "./manifest-rows.js";

// The rows of a delta session (sessions/delta-open.ts) written as a delta manifest of its base at
// publish: they are the delta already (compared with the base when the session opened), so each is
// copied, nothing compared again.

/**
 * Copies a delta session's rows into the manifest: a path added or changed with the type an upload
 * declared for its hash, else its extension's (as manifest-rows.ts writes a session's files), a
 * tombstone (hash empty) as a removed row, then the session's hashes (those of the rows added or
 * changed) as the manifest's. Returns how many rows it wrote.
 */
export async function copyDeltaSession(
  database: PlatformDatabase,
  target: Target,
  pacer: Pacer,
): Promise<number> {
  const { projectSlug, sessionId, id } = target;
  let written = 0;
  const postgres = database.dialect === "postgres";
  await inOrderedSlices(database, sessionAssetRows(sessionId), pacer, async (trx, range) => {
    written += await changesOf(
      trx,
      sql`INSERT INTO manifest_files
          (project_slug, manifest_id, path, hash, content_type, compressible, removed)
        SELECT CAST(${projectSlug} AS TEXT), CAST(${id} AS TEXT), a.path, a.hash,
          CASE WHEN a.hash = '' THEN '' ELSE ${TYPE} END,
          CASE WHEN a.hash = '' THEN 0 ELSE ${COMPRESSIBLE} END,
          CASE WHEN a.hash = '' THEN 1 ELSE 0 END
        ${SESSION_FILES} WHERE ${range}`,
    );
    // PostgreSQL's one range is the whole session: its hashes go in the same transaction.
    if (postgres) await sessionHashesInsert(target, sessionHashRows(sessionId).scope).execute(trx);
    return true;
  });
  if (!postgres) await writeSessionHashes(database, target, pacer);
  return written;
}
