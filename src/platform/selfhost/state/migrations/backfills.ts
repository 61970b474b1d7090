import { rowBytesSumSql } from "../../quotas/quota-charges.js";
import type { SqlDialect } from "../platform-db.js";

// Rows that migrations fill for what a database held before them, on either engine.

/** session_hashes from the manifests of the sessions open when the table was added. */
export const FILL_SESSION_HASHES = `INSERT INTO session_hashes (session_id, hash, path, size, media_type, compressible)
  SELECT session_id, hash, MIN(path), MAX(size), NULL, NULL FROM session_assets GROUP BY session_id, hash`;

/**
 * revisions.row_bytes (the charge of a revision's rows) for the revisions kept when it was added,
 * from `revision_files` (the table of a revision's files then; 0003/0009_manifests moved them).
 */
export function fillRowBytes(dialect: SqlDialect): string {
  return `UPDATE revisions SET row_bytes = (SELECT ${rowBytesSumSql(dialect)} FROM revision_files f
    WHERE f.project_slug = revisions.project_slug AND f.revision_id = revisions.revision_id)`;
}

/**
 * session_hashes.paths_compressible of the sessions open when it was added: 1 when one of the
 * session's rows of the hash is compressible (found through session_assets' key by hash then).
 */
export const FILL_PATHS_COMPRESSIBLE = `UPDATE session_hashes SET paths_compressible = COALESCE((
  SELECT MAX(a.compressible) FROM session_assets a
  WHERE a.session_id = session_hashes.session_id AND a.hash = session_hashes.hash), 0)`;
