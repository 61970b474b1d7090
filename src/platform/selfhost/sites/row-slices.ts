import { type RawBuilder, sql } from "kysely";
import type { Pacer } from "../../../shared/event-loop.js";
import {
  type Executor,
  firstOf,
  lockContent,
  NOT_DURABLE,
  type PlatformDatabase,
} from "../state/platform-db.js";
import { ROWS_PER_SLICE } from "../sessions/session-rows.js";
import { MAX_SLICE_GROWTH, SliceRows } from "../state/slice-rows.js";

/**
 * Rows read in the order of `key`: `table AS alias` where `scope` holds (the first columns of an
 * index whose next are `key`).
 */
export interface OrderedRows {
  table: string;
  alias: string;
  scope: RawBuilder<unknown>;
  key: string[];
}

/**
 * Rows a transaction of a sliced copy on SQLite spans (eight ranges of ROWS_PER_SLICE at first, as
 * many rows as a sliced deletion's largest transaction), the event loop free between its ranges. A
 * commit writes every page its ranges dirtied to the log, and rows copied in hash order into a
 * table keyed by path dirty a page each: a commit a range rewrote each page of a 50,000-file
 * manifest some fourteen times, its 99 commits ~0.8 s of the thread; 13 commits ~0.24 s, the
 * longest ~33 ms against ~20 (issue 32). Meanwhile the connection is the transaction's: other
 * statements wait for its commit, up to eight ranges where they waited for one.
 */
export const ROWS_PER_COMMIT = MAX_SLICE_GROWTH * ROWS_PER_SLICE;

/**
 * Runs `work` over the rows, a range of them at a time, with the condition selecting the range
 * (columns qualified by the alias); `work` returns false to stop there (what it did is kept). On
 * SQLite, whose statements run in this thread, ROWS_PER_SLICE rows a range at first (more while
 * ranges are quick, slice-rows.ts), each found by one read of its last key, the event loop free
 * between ranges (a copy of 20,000 rows in one statement held it 216 ms, issue 31); ranges of about
 * ROWS_PER_COMMIT rows a transaction, each committing without waiting for the disk (the caller's
 * next transaction makes them durable). On PostgreSQL, which works apart from this thread, one
 * range (sliced, each slice's ordered read sorted every row of a fresh table, whose planner has no
 * statistics yet: a minute for 100,000 rows), under the shared content lock (what writes rows
 * naming blobs takes). Returns whether every range was worked.
 */
export async function inOrderedSlices(
  database: PlatformDatabase,
  rows: OrderedRows,
  pacer: Pacer,
  work: (trx: Executor, range: RawBuilder<unknown>) => Promise<boolean>,
): Promise<boolean> {
  if (database.dialect === "postgres") {
    return database.transaction(async (trx) => {
      await lockContent(database, trx, "shared");
      return work(trx, rows.scope);
    });
  }
  const columns = sql.join(rows.key.map((column) => sql.ref(`${rows.alias}.${column}`)));
  const tuple = (key: unknown[]) => sql`(${sql.join(key)})`;
  let after: unknown[] | undefined;
  const slice = new SliceRows(ROWS_PER_SLICE, pacer);
  // The next range: its condition, and its last key (none: the rows left, the last range).
  const nextRange = async (trx: Executor) => {
    const above = after === undefined ? sql`` : sql`AND (${columns}) > ${tuple(after)}`;
    const last = await firstOf(
      trx,
      sql<Record<string, unknown>>`SELECT ${columns} FROM ${sql.table(rows.table)} AS ${sql.ref(rows.alias)}
        WHERE ${rows.scope} ${above} ORDER BY ${columns} LIMIT 1 OFFSET ${slice.next - 1}`,
    );
    const key = last && rows.key.map((column) => last[column]);
    const below = key === undefined ? sql`` : sql`AND (${columns}) <= ${tuple(key)}`;
    return { range: sql`${rows.scope} ${above} ${below}`, key };
  };
  for (;;) {
    const outcome = await database.transaction(async (trx) => {
      for (let held = 0; ;) {
        const { range, key } = await nextRange(trx);
        if (!(await work(trx, range))) return "stopped";
        if (key === undefined) return "done";
        after = key;
        held += slice.next;
        slice.done();
        if (held >= ROWS_PER_COMMIT) return "commit";
        // A range is a turn of the event loop at most (the connection stays the transaction's).
        await pacer.next();
      }
    }, NOT_DURABLE);
    if (outcome !== "commit") return outcome === "done";
    // So is a commit.
    await pacer.next();
  }
}
