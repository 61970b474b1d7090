import { CompiledQuery } from "kysely";
import type { Executor, SqlDialect } from "./platform-db.js";
import { insertParameters, insertRows } from "./row-insert.js";
import { arrayLiteral } from "./array-literal.js";

/**
 * Runs `head tail` with `rows` as its values: on PostgreSQL `head SELECT … FROM unnest($1::t1[],
 * …) tail`, one array parameter a column (`types` names their SQL types), on SQLite `head VALUES
 * (…), (…) tail` (insertRows). A statement of 5,000 rows of 6 values cost this thread about three
 * times more as 30,000 parameters and their text (`$1`…`$30000`) than as 6 arrays, and a third
 * more bytes to the server (issue 32). A column of one value in every row (a session's id) goes
 * once, as a value of that type, and each array as its literal text, written here in one join:
 * the driver's own array writer (a string grown a quoted element at a time, then measured and
 * flattened) and the session's id 5,000 times over were a fifth of a PostgreSQL prepare's time
 * on this thread. `head` and `tail` are SQL of ours, never input.
 */
export async function insertMany(
  executor: Executor,
  dialect: SqlDialect,
  head: string,
  types: readonly string[],
  rows: readonly (readonly unknown[])[],
  tail = "",
): Promise<void> {
  if (rows.length === 0) return;
  if (dialect !== "postgres") return insertRows(executor, dialect, head, rows, tail);
  const columns = types.map((_, column): InsertColumn => {
    const first = rows[0]![column];
    return rows.every((row) => row[column] === first) ? { same: first } : rows.map((row) => row[column]);
  });
  await insertUnnested(executor, head, types, rows.length, columns, tail);
}

/** A column of the rows insertColumns writes: the same value in every row, or a value a row. */
export type InsertColumn = { same: unknown } | readonly unknown[];

/**
 * insertMany with the rows given by column: `count` rows, each column a value a row or one value
 * for all. A session's manifest rows are so written without an array a row (100,000 of them a
 * prepare, then read again column by column on PostgreSQL or flattened on SQLite).
 */
export async function insertColumns(
  executor: Executor,
  dialect: SqlDialect,
  head: string,
  types: readonly string[],
  count: number,
  columns: readonly InsertColumn[],
  tail = "",
): Promise<void> {
  if (count === 0) return;
  if (columns.length !== types.length) throw new Error("insertColumns: a type a column");
  const valueOf = (column: InsertColumn, row: number) => (isSame(column) ? column.same : column[row]);
  if (dialect !== "postgres") {
    const width = columns.length;
    const parameters = new Array<unknown>(count * width);
    for (let c = 0; c < width; c++) {
      const column = columns[c]!;
      for (let row = 0, at = c; row < count; row++, at += width) parameters[at] = valueOf(column, row);
    }
    await insertParameters(executor, dialect, head, count, width, parameters, tail);
    return;
  }
  await insertUnnested(executor, head, types, count, columns, tail);
}

/**
 * PostgreSQL's `head SELECT … FROM unnest(…) tail` of `count` rows (insertMany says why): a column
 * of one value goes once, as a value of its type, unless no other is an array; each other column
 * as one array literal.
 */
async function insertUnnested(
  executor: Executor,
  head: string,
  types: readonly string[],
  count: number,
  columns: readonly InsertColumn[],
  tail: string,
): Promise<void> {
  const parameters: unknown[] = [];
  const selected: string[] = [];
  const unnested: string[] = [];
  const names: string[] = [];
  for (const [c, type] of types.entries()) {
    const column = columns[c]!;
    // An array column at least (the last, if no other is one): the statement then has `count` rows.
    const alone = unnested.length === 0 && c === types.length - 1;
    if (isSame(column) && !alone) {
      parameters.push(column.same ?? null);
      selected.push(`$${parameters.length}::${type}`);
      continue;
    }
    if (!isSame(column) && !alone && column.every((value) => value === column[0])) {
      parameters.push(column[0] ?? null);
      selected.push(`$${parameters.length}::${type}`);
      continue;
    }
    const values = isSame(column) ? new Array<unknown>(count).fill(column.same) : column;
    parameters.push(arrayLiteral(values));
    unnested.push(`$${parameters.length}::${type}[]`);
    names.push(`c${c}`);
    selected.push(`t.c${c}`);
  }
  const from = `unnest(${unnested.join(", ")}) AS t(${names.join(", ")})`;
  await executor.executeQuery(
    CompiledQuery.raw(`${head} SELECT ${selected.join(", ")} FROM ${from} ${tail}`, parameters),
  );
}

function isSame(column: InsertColumn): column is { same: unknown } {
  return !Array.isArray(column);
}
