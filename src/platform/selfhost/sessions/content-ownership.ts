import { sql } from "kysely";
import { type Executor, firstOf, rowsOf, type SqlDialect } from "../state/platform-db.js";
import { hashIn } from "./session-rows.js";

// Which of a new session's hashes are the project's already (session-open.ts): content its kept
// revisions name or its open sessions verified, whose bytes need not be uploaded again.

/**
 * Whether any of the project's kept revisions names a file, or any of its live sessions has one:
 * when neither does, none of a new session's hashes is the project's, and looking each up
 * (ownedByRevision, ownedBySession, a probe a hash) finds nothing (a first deploy's every slice).
 */
export async function projectHoldsContent(
  executor: Executor,
  projectSlug: string,
  now: number,
): Promise<boolean> {
  const row = await firstOf(
    executor,
    sql<{ n: number | string }>`SELECT CASE
        WHEN EXISTS (SELECT 1 FROM manifest_hashes WHERE project_slug = ${projectSlug}) THEN 1
        WHEN EXISTS (SELECT 1 FROM upload_sessions u WHERE u.project_slug = ${projectSlug}
          AND u.expires_at > ${now}
          AND EXISTS (SELECT 1 FROM session_blobs h WHERE h.session_id = u.id)) THEN 1
        ELSE 0 END AS n`,
  );
  return Number(row!.n) === 1;
}

/**
 * Those of `hashes` one of the project's kept revisions names, with their bytes whole: one seek of
 * the index on manifest_hashes(project_slug, hash) a hash. A join read every row naming a hash, so a revision of
 * 20,000 paths naming one file, kept ten times, made this 200,000 rows (up to 118 ms, issue 31).
 */
export async function ownedByRevision(
  trx: Executor,
  dialect: SqlDialect,
  projectSlug: string,
  hashes: string[],
): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await rowsOf(
    trx,
    sql<{ hash: string }>`SELECT b.hash FROM blobs b
      WHERE ${hashIn(dialect, "b.hash", hashes)} AND b.damaged = 0 AND EXISTS
        (SELECT 1 FROM manifest_hashes f WHERE f.project_slug = ${projectSlug} AND f.hash = b.hash)`,
  );
  return new Set(rows.map((row) => row.hash));
}

/** Those of `hashes` verified in (or granted to) one of the project's open sessions, bytes whole. */
export async function ownedBySession(
  trx: Executor,
  dialect: SqlDialect,
  projectSlug: string,
  hashes: string[],
  now: number,
): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await rowsOf(
    trx,
    sql<{ hash: string }>`SELECT DISTINCT h.hash FROM session_blobs h
      JOIN upload_sessions u ON u.id = h.session_id
      JOIN blobs b ON b.hash = h.hash AND b.damaged = 0
      WHERE ${hashIn(dialect, "h.hash", hashes)} AND u.project_slug = ${projectSlug} AND u.expires_at > ${now}`,
  );
  return new Set(rows.map((row) => row.hash));
}
