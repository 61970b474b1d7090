import { CompiledQuery } from "kysely";
import type { Executor, SqlDialect } from "./platform-db.js";

/** The statement texts kept, by shape: a few a kind of statement (a slice's, and a last one's). */
const KEPT_SHAPES = 64;
const statementTexts = new Map<string, string>();

/**
 * Runs `head VALUES (…), (…) tail` with `rows` as its parameters, its text written here rather
 * than compiled by Kysely: compiling a statement of 500 rows (3,000 parameters, each a node
 * visited and frozen) took as long as SQLite's work on it, up to 97 ms of the thread the service
 * shares on a busy machine (issue 31). The text of a shape (statement, rows × columns) is
 * written once and kept: writing it for every statement made a string and an array a row, and
 * the statement cache then read the whole new text to find it (issue 32). `head` and `tail` are
 * SQL of ours, never input.
 */
export async function insertRows(
  executor: Executor,
  dialect: SqlDialect,
  head: string,
  rows: readonly (readonly unknown[])[],
  tail = "",
): Promise<void> {
  if (rows.length === 0) return;
  const width = rows[0]!.length;
  const parameters = new Array<unknown>(rows.length * width);
  let at = 0;
  for (const row of rows) {
    if (row.length !== width)
      throw new Error(`insertRows: a row of ${row.length} values among rows of ${width}`);
    for (const value of row) parameters[at++] = value;
  }
  await insertParameters(executor, dialect, head, rows.length, width, parameters, tail);
}

/**
 * Runs `head VALUES (…), (…) tail` for `count` rows of `width` values each, `parameters` holding
 * them row after row (insertRows, or a caller that has its values by column, column-insert.ts),
 * and returns the rows it answers (a `RETURNING` tail's). Parameters after the rows' (the tail's,
 * written with parameterMark) follow them in `parameters`.
 */
export async function insertParameters<R = unknown>(
  executor: Executor,
  dialect: SqlDialect,
  head: string,
  count: number,
  width: number,
  parameters: unknown[],
  tail = "",
): Promise<R[]> {
  if (count === 0) return [];
  const result = await executor.executeQuery<R>(
    CompiledQuery.raw(statementText(dialect, head, tail, count, width), parameters),
  );
  return result.rows;
}

/** The mark of the `position`th parameter of a statement (from 1): `?` on SQLite, `$n` on PostgreSQL. */
export function parameterMark(dialect: SqlDialect, position: number): string {
  return dialect === "postgres" ? `$${position}` : "?";
}

/**
 * `head VALUES (?, ?), (?, ?) tail` for 2 rows of 2 (`($1, $2), ($3, $4)` on PostgreSQL), kept
 * by shape: the same string each time, whose hash the statement cache has already taken.
 */
function statementText(
  dialect: SqlDialect,
  head: string,
  tail: string,
  count: number,
  width: number,
): string {
  const shape = `${dialect}\0${count}\0${width}\0${head}\0${tail}`;
  let text = statementTexts.get(shape);
  if (text !== undefined) return text;
  const tuples = new Array<string>(count);
  for (let row = 0; row < count; row++) {
    const marks = new Array<string>(width);
    for (let column = 0; column < width; column++)
      marks[column] = parameterMark(dialect, row * width + column + 1);
    tuples[row] = `(${marks.join(", ")})`;
  }
  text = `${head} VALUES ${tuples.join(", ")} ${tail}`;
  if (statementTexts.size >= KEPT_SHAPES) statementTexts.delete(statementTexts.keys().next().value!);
  statementTexts.set(shape, text);
  return text;
}
