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
import { SliceRows } from "../state/slice-rows.js";

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
 * Runs `work` over the rows, a range of them a transaction, with the condition selecting the range
 * (columns qualified by the alias); `work` returns false to stop there. On SQLite, whose statements
 * run in this thread, ROWS_PER_SLICE rows a range at first (more while ranges are quick,
 * slice-rows.ts), each found by one read of its last key (the event loop free between ranges; a
 * copy of 20,000 rows in one statement held it 216 ms, issue 31); each commits without waiting for the disk, the caller's
 * next transaction makes them durable. On PostgreSQL, which works apart from this thread, one
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
  for (;;) {
    const above = after === undefined ? sql`` : sql`AND (${columns}) > ${tuple(after)}`;
    const last = await firstOf(
      database.db,
      sql<Record<string, unknown>>`SELECT ${columns} FROM ${sql.table(rows.table)} AS ${sql.ref(rows.alias)}
        WHERE ${rows.scope} ${above} ORDER BY ${columns} LIMIT 1 OFFSET ${slice.next - 1}`,
    );
    const key = last && rows.key.map((column) => last[column]);
    const below = key === undefined ? sql`` : sql`AND (${columns}) <= ${tuple(key)}`;
    const range = sql`${rows.scope} ${above} ${below}`;
    const more = await database.transaction((trx) => work(trx, range), NOT_DURABLE);
    if (!more) return false;
    if (key === undefined) return true;
    after = key;
    slice.done();
    // A range's transaction is a turn of the event loop at most.
    await pacer.next();
  }
}
