import { CompiledQuery } from "kysely";
import type { Executor, SqlDialect } from "./platform-db.js";
import { insertRows } from "./row-insert.js";
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
  const parameters: unknown[] = [];
  const selected: string[] = [];
  const unnested: string[] = [];
  const names: string[] = [];
  for (const [column, type] of types.entries()) {
    const first = rows[0]![column];
    // An array column at least (the last, if no other is one): the statement then has as many
    // rows as `rows`.
    const alone = unnested.length === 0 && column === types.length - 1;
    if (!alone && rows.every((row) => row[column] === first)) {
      parameters.push(first ?? null);
      selected.push(`$${parameters.length}::${type}`);
      continue;
    }
    parameters.push(arrayLiteral(rows.map((row) => row[column])));
    unnested.push(`$${parameters.length}::${type}[]`);
    names.push(`c${column}`);
    selected.push(`t.c${column}`);
  }
  const from = `unnest(${unnested.join(", ")}) AS t(${names.join(", ")})`;
  await executor.executeQuery(
    CompiledQuery.raw(`${head} SELECT ${selected.join(", ")} FROM ${from} ${tail}`, parameters),
  );
}
