import { sql } from "kysely";
import { changesOf, type Executor } from "../state/platform-db.js";
import { SESSION_ROW_KEYS, type SessionRowTable } from "../sessions/session-rows.js";

// Expired upload sessions and their manifest rows, deleted a bounded batch at a time by the
// collector (garbage-collector.ts), before it looks for content nothing names any more.

/**
 * Deletes up to `batch` manifest rows of expired sessions (and up to `batch` of their records of
 * content they have); once those were the last of them, up to `batch` expired sessions (which then
 * name nothing). Call inside a transaction.
 */
export async function expireSessions(
  trx: Executor,
  now: number,
  batch: number,
): Promise<{ rows: number; sessions: number }> {
  // Each statement deletes at most `batch` rows; fewer means it found none left.
  let rows = 0;
  for (const table of Object.keys(SESSION_ROW_KEYS) as SessionRowTable[])
    rows += await deleteExpiredSessionRows(trx, table, now, batch);
  if (rows >= batch) return { rows, sessions: 0 };
  const sessions = await changesOf(
    trx,
    sql`DELETE FROM upload_sessions WHERE id IN (
      SELECT id FROM upload_sessions WHERE expires_at <= ${now} LIMIT ${batch})`,
  );
  return { rows: 0, sessions };
}

/** Deletes up to `batch` rows of `table` whose session expired at or before `now`; how many went. */
function deleteExpiredSessionRows(
  trx: Executor,
  table: SessionRowTable,
  now: number,
  batch: number,
): Promise<number> {
  const key = SESSION_ROW_KEYS[table];
  const columns = sql.join(key.map((column) => sql.ref(column)));
  const rowColumns = sql.join(key.map((column) => sql.ref(`r.${column}`)));
  return changesOf(
    trx,
    sql`DELETE FROM ${sql.table(table)} WHERE (${columns}) IN (
      SELECT ${rowColumns} FROM upload_sessions u JOIN ${sql.table(table)} r ON r.session_id = u.id
      WHERE u.expires_at <= ${now} LIMIT ${batch})`,
  );
}
