import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../../shared/database/sqlite.js";
import { hotQuery } from "./hot-query.js";
import { firstOf, type PlatformDatabase, sqlitePlatformDatabase } from "./platform-db.js";

let database: PlatformDatabase;

beforeEach(async () => {
  database = sqlitePlatformDatabase(openSqlite(":memory:"));
  await sql`CREATE TABLE t (k TEXT, v INTEGER)`.execute(database.db);
  await sql`INSERT INTO t VALUES ('a', 1), ('b', 2), ('c', 3)`.execute(database.db);
});
afterEach(() => database.close());

const query = (first: string, second: string) =>
  sql<{ n: number; top: string | null }>`SELECT COUNT(*) AS n, MAX(k) AS top FROM t
    WHERE k = ${first} OR k = ${second} OR (k > ${first} AND v > LENGTH(${second}))`;

describe("hotQuery", () => {
  it("hotQuery: gives the row Kysely gives, its arguments used in any order and more than once", async () => {
    const hot = hotQuery(database, query);
    for (const [first, second] of [
      ["a", "b"],
      ["b", "a"],
      ["c", "zz"],
      ["x", "y"],
    ] as const) {
      expect(await hot(first, second)).toEqual(await firstOf(database.db, query(first, second)));
    }
  });

  it("hotQuery: undefined when the query returns no row", async () => {
    const hot = hotQuery(database, (k: string) => sql<{ v: number }>`SELECT v FROM t WHERE k = ${k}`);
    expect(await hot("b")).toEqual({ v: 2 });
    expect(await hot("none")).toBeUndefined();
  });

  it("hotQuery: during another transaction, waits for its end and never reads what it had not committed", async () => {
    const hot = hotQuery(database, (k: string) => sql<{ v: number }>`SELECT v FROM t WHERE k = ${k}`);
    let pending: Promise<{ v: number } | undefined> | undefined;
    await expect(
      database.transaction(async (trx) => {
        await sql`INSERT INTO t VALUES ('d', 4)`.execute(trx);
        pending = hot("d");
        await sql`UPDATE t SET v = 5 WHERE k = 'd'`.execute(trx);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await pending).toBeUndefined();
    expect(await hot("d")).toBeUndefined();
  });

  it("hotQuery: a query holding a value that is not one of its arguments is refused, not run", async () => {
    const hot = hotQuery(
      database,
      (k: string) => sql<{ v: number }>`SELECT v FROM t WHERE k = ${k} AND v > ${0}`,
    );
    await expect(hot("b")).rejects.toThrow("hotQuery: every parameter of the query must be an argument");
  });
});
