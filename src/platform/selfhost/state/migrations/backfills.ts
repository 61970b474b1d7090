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
 * The manifests of the revisions kept when `manifests` was added: each revision's files (from
 * `revision_files`) become a full manifest of its own, named by the revision's id (unique in its
 * project), of no known digest (never shared with a later one). Files of a revision with no
 * `revisions` row (a publish that failed) are left behind with their table.
 */
export const FILL_MANIFESTS = [
  `INSERT INTO manifests (project_slug, id, digest, base_id, file_count, row_bytes, created_at)
    SELECT r.project_slug, r.revision_id, NULL, NULL,
      (SELECT COUNT(*) FROM revision_files f
        WHERE f.project_slug = r.project_slug AND f.revision_id = r.revision_id), r.row_bytes, r.created_at
    FROM revisions r`,
  `INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
    SELECT f.project_slug, f.revision_id, f.path, f.hash, f.content_type, f.compressible, 0
    FROM revision_files f JOIN revisions r
      ON r.project_slug = f.project_slug AND r.revision_id = f.revision_id`,
  "UPDATE revisions SET manifest_id = revision_id",
];
