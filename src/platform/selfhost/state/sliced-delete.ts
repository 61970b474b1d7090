import { sql } from "kysely";
import type { Pacer } from "../../../shared/event-loop.js";
import { firstOf, type PlatformDatabase, type TransactionOptions } from "./platform-db.js";
import { SliceRows } from "./slice-rows.js";

/** Rows to delete: those of `table` whose `scope` columns equal their values, in the order of `key`. */
export interface KeyedRows {
  table: string;
  /** Columns and values selecting the rows: the first columns of an index whose next are `key`. */
  scope: [column: string, value: string][];
  key: string[];
}

/**
 * Deletes the rows: on SQLite, whose statements run in this thread, a statement of `size` rows at
 * first (more while slices are quick, slice-rows.ts) at a time in the order of their key, the
 * event loop free between statements. Each slice is a range of the index bounded
 * on both sides, found with one read: deleting "the first `size` rows" again and again read every
 * row deleted before (a page's free space is reclaimed later), quadratic in the rows. The last
 * slice's commit syncs the log unless `options.durable` is false (rows a crash may leave).
 */
export async function deleteInSlices(
  database: PlatformDatabase,
  rows: KeyedRows,
  size: number,
  pacer: Pacer,
  options: TransactionOptions = {},
): Promise<void> {
  const table = sql.table(rows.table);
  const scoped = sql.join(
    rows.scope.map(([column, value]) => sql`${sql.ref(column)} = ${value}`),
    sql` AND `,
  );
  // The row value of the key's columns only: SQLite searches the index by it after the scope's
  // equalities (a row value starting with them was a filter over every row of the scope).
  const columns = sql.join(rows.key.map((column) => sql.ref(column)));
  const tuple = (key: unknown[]) => sql`(${sql.join(key)})`;
  // PostgreSQL works apart from this thread: one statement, which needs no order (a fresh table
  // has no statistics, and its planner then sorted every row for each slice: a minute for 100,000).
  if (database.dialect === "postgres") {
    await sql`DELETE FROM ${table} WHERE ${scoped}`.execute(database.db);
    return;
  }
  let after: unknown[] | undefined;
  const slice = new SliceRows(size, pacer);
  for (;;) {
    const above = after === undefined ? sql`` : sql`AND (${columns}) > ${tuple(after)}`;
    const last = await firstOf(
      database.db,
      sql<Record<string, unknown>>`SELECT ${columns} FROM ${table} WHERE ${scoped} ${above}
        ORDER BY ${columns} LIMIT 1 OFFSET ${slice.next - 1}`,
    );
    const key = last && rows.key.map((column) => last[column]);
    const below = key === undefined ? sql`` : sql`AND (${columns}) <= ${tuple(key)}`;
    // Every slice but the last commits without waiting for the disk; the last one's sync makes
    // them all durable (platform-db.ts, TransactionOptions), unless `options` says none need be.
    await database.transaction(
      (trx) => sql`DELETE FROM ${table} WHERE ${scoped} ${above} ${below}`.execute(trx),
      { durable: key === undefined && options.durable !== false },
    );
    if (key === undefined) return;
    after = key;
    slice.done();
    // A slice is a turn of the event loop at most.
    await pacer.next();
  }
}
