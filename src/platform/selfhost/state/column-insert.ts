import { CompiledQuery } from "kysely";
import type { Executor, SqlDialect } from "./platform-db.js";
import { insertRows } from "./row-insert.js";

/**
 * Runs `head tail` with `rows` as its values: on PostgreSQL `head SELECT * FROM unnest($1::t1[],
 * …) tail`, one array parameter a column (`types` names their SQL types), on SQLite `head VALUES
 * (…), (…) tail` (insertRows). A statement of 5,000 rows of 6 values cost this thread about three
 * times more as 30,000 parameters and their text (`$1`…`$30000`) than as 6 arrays, and a third
 * more bytes to the server (issue 32). `head` and `tail` are SQL of ours, never input.
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
  const columns = types.map((_, column) => rows.map((row) => row[column]));
  const arrays = types.map((type, column) => `$${column + 1}::${type}[]`).join(", ");
  await executor.executeQuery(CompiledQuery.raw(`${head} SELECT * FROM unnest(${arrays}) ${tail}`, columns));
}
