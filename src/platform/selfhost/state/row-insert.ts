import { CompiledQuery } from "kysely";
import type { Executor, SqlDialect } from "./platform-db.js";

/**
 * Runs `head VALUES (…), (…) tail` with `rows` as its parameters, its text written here rather
 * than compiled by Kysely: compiling a statement of 500 rows (3,000 parameters, each a node
 * visited and frozen) took as long as SQLite's work on it, up to 97 ms of the thread the service
 * shares on a busy machine (issue 31). `head` and `tail` are SQL of ours, never input.
 */
export async function insertRows(
  executor: Executor,
  dialect: SqlDialect,
  head: string,
  rows: readonly (readonly unknown[])[],
  tail = "",
): Promise<void> {
  if (rows.length === 0) return;
  const parameters: unknown[] = [];
  const tuples: string[] = [];
  for (const row of rows) {
    const marks: string[] = [];
    for (const value of row) {
      parameters.push(value);
      marks.push(dialect === "postgres" ? `$${parameters.length}` : "?");
    }
    tuples.push(`(${marks.join(", ")})`);
  }
  await executor.executeQuery(CompiledQuery.raw(`${head} VALUES ${tuples.join(", ")} ${tail}`, parameters));
}
