import { sql } from "kysely";
import type { PartRun, PartState } from "../../../core/uploaded-bucket.js";
import { type Executor, rowsOf } from "../state/platform-db.js";

/** The most hashes one run reads: what one statement answers for (issue 32). */
export const MAX_PART_RUN = 5_000;

/**
 * Up to `limit` of a session's hashes from `from` on, in hash order, each with what receiving a
 * part of it needs to know, in one statement that walks session_hashes' key (session, hash): a
 * path naming it and the largest size declared for it, whether the session has it already, and
 * whether the platform holds its blob whole for any project. With `missingOnly`, only the hashes
 * the session does not have yet (what a bucket brings): a redeploy's few changed files are then
 * not spread over runs of what is unchanged. One statement a run instead of one a part: a
 * 10,000-file deploy cost PostgreSQL 10,259 statements, most of them these lookups. Hashes are
 * 32 lowercase hex digits, which every collation orders as JavaScript compares them: the caller
 * may judge which hashes a run covers.
 */
export async function readPartRun(
  executor: Executor,
  sessionId: string,
  from: string,
  limit: number,
  missingOnly: boolean,
): Promise<PartRun> {
  const count = Math.max(1, Math.min(limit, MAX_PART_RUN));
  const inSession = sql`EXISTS (SELECT 1 FROM session_blobs h WHERE h.session_id = a.session_id AND h.hash = a.hash)`;
  const rows = await rowsOf(
    executor,
    sql<{
      hash: string;
      path: string;
      size: number | string;
      in_session: number | string;
      held: number | string;
    }>`SELECT a.hash, a.path, a.size,
        CASE WHEN ${inSession} THEN 1 ELSE 0 END AS in_session,
        CASE WHEN EXISTS (SELECT 1 FROM blobs b WHERE b.hash = a.hash AND b.damaged = 0)
          THEN 1 ELSE 0 END AS held
      FROM session_hashes a
      WHERE a.session_id = ${sessionId} AND a.hash >= ${from} ${missingOnly ? sql`AND NOT ${inSession}` : sql``}
      ORDER BY a.hash LIMIT ${count}`,
  );
  const parts = new Map<string, PartState>();
  for (const row of rows) {
    parts.set(row.hash, {
      asset: { path: row.path, size: Number(row.size) },
      inSession: Number(row.in_session) === 1,
      held: Number(row.held) === 1,
    });
  }
  return { parts, through: rows.length === count ? rows[rows.length - 1]!.hash : undefined };
}
