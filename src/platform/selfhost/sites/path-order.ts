import { sql } from "kysely";
import type { Pacer } from "../../../shared/event-loop.js";
import { sortPaced } from "../../../shared/paced-sort.js";
import { rowCharge } from "../quotas/quota-charges.js";
import { NOT_DURABLE, type PlatformDatabase, rowsOf } from "../state/platform-db.js";
import { ROWS_PER_SLICE } from "../sessions/session-rows.js";
import { ROWS_PER_COMMIT } from "./row-slices.js";

/*
 * A session's rows copied into a manifest in the order of their paths, on SQLite (issue 32). The
 * session keeps them by (hash, path), as its prepare wrote them; copied in that order into a table
 * keyed by path every commit rewrote pages all over it (0.5 to 0.9 s of the thread for 50,000
 * rows). An index of the session's rows by path would cost every prepare as much, so the keys are
 * read here, sorted (paced), and each slice's rows found by their key, a seek each, in path order.
 * Paths sort as JavaScript compares them (UTF-16), SQLite's keys as UTF-8 bytes: the two differ
 * only between paths with characters above U+FFFF and ones in U+E000 to U+FFFF, which then land
 * out of place, costing a page, nothing else. Memory: the session's paths and hashes (a prepare
 * holds its whole manifest too).
 */

/** Session rows' keys read in one statement (each read a seek and a few milliseconds). */
const KEYS_PER_READ = 4096;

interface Key {
  hash: string;
  path: string;
}

/** The session's row keys in the order of their paths, and the charge of its rows (their paths). */
async function keysByPath(
  database: PlatformDatabase,
  sessionId: string,
  pacer: Pacer,
): Promise<{ keys: Key[]; rowBytes: number }> {
  const keys: Key[] = [];
  let rowBytes = 0;
  let after: Key | undefined;
  for (;;) {
    const above = after === undefined ? sql`` : sql`AND (hash, path) > (${after.hash}, ${after.path})`;
    const rows = await rowsOf(
      database.db,
      sql<Key>`SELECT hash, path FROM session_assets WHERE session_id = ${sessionId} ${above}
        ORDER BY hash, path LIMIT ${KEYS_PER_READ}`,
    );
    for (const row of rows) {
      keys.push(row);
      rowBytes += rowCharge(row.path);
    }
    if (rows.length < KEYS_PER_READ) break;
    after = rows[rows.length - 1];
    if (pacer.due()) await pacer.next();
  }
  const ordered = await sortPaced(keys, (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0), pacer);
  return { keys: ordered, rowBytes };
}

/**
 * Copies every row of the session into the manifest in path order (SQLite only), ROWS_PER_SLICE a
 * statement and ROWS_PER_COMMIT a transaction, committed without waiting for the disk (the
 * publish's transaction makes them durable), the event loop free between statements. Returns the
 * charge of the rows.
 */
export async function copyInPathOrder(
  database: PlatformDatabase,
  target: { projectSlug: string; sessionId: string; id: string },
  pacer: Pacer,
): Promise<number> {
  const { projectSlug, sessionId, id } = target;
  const { keys, rowBytes } = await keysByPath(database, sessionId, pacer);
  for (let start = 0; start < keys.length;) {
    await database.transaction(async (trx) => {
      for (const end = Math.min(start + ROWS_PER_COMMIT, keys.length); start < end;) {
        const slice = keys.slice(start, Math.min(start + ROWS_PER_SLICE, end));
        const pairs = JSON.stringify(slice.map((key) => [key.path, key.hash]));
        // The keys' list drives (CROSS JOIN keeps it outside), each row found by its key; a type
        // an upload declared for the hash wins over its path's (manifest-rows.ts SESSION_FILES).
        await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible)
          SELECT ${projectSlug}, ${id}, a.path, a.hash, COALESCE(h.media_type, a.content_type),
            COALESCE(h.compressible, a.compressible)
          FROM json_each(${pairs}) k CROSS JOIN session_assets a
            LEFT JOIN session_hashes h ON h.session_id = a.session_id AND h.hash = a.hash
          WHERE a.session_id = ${sessionId} AND a.hash = json_extract(k.value, '$[1]')
            AND a.path = json_extract(k.value, '$[0]')`.execute(trx);
        start += slice.length;
        if (start < end) await pacer.next();
      }
    }, NOT_DURABLE);
    await pacer.next();
  }
  return rowBytes;
}
