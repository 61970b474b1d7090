import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { describePostgres, testPostgres } from "../../../../test/support/postgres.js";
import { openPostgres } from "../../../shared/database/postgres.js";
import { arrayLiteral } from "./array-literal.js";
import { insertColumns, insertMany } from "./column-insert.js";
import { openSqlite } from "../../../shared/database/sqlite.js";
import { sqlitePlatformDatabase } from "./platform-db.js";
import { type PlatformDatabase, rowsOf } from "./platform-db.js";
import { postgresPlatformDatabase } from "./postgres-database.js";

const AWKWARD = ['a "quoted" one', "back\\slash", "comma, {brace}", "NULL", "", "ünï ✓", '\\"'];

it("arrayLiteral: each element quoted, a quote or backslash escaped, null and undefined as NULL", () => {
  expect(arrayLiteral(["ab", 1, "c"])).toBe('{"ab","1","c"}');
  expect(arrayLiteral(['a"b', "c\\d", null, undefined, 2])).toBe('{"a\\"b","c\\\\d",NULL,NULL,"2"}');
  expect(arrayLiteral([])).toBe("{}");
});

let database: PlatformDatabase | undefined;
afterEach(async () => {
  await database?.close();
  database = undefined;
});

/** Writes AWKWARD's rows by column into `t` of `db`, and reads them back in order. */
async function byColumns(db: PlatformDatabase) {
  await sql`CREATE TABLE t (k TEXT NOT NULL, n BIGINT, s TEXT, f INTEGER, PRIMARY KEY (k, n))`.execute(db.db);
  const head = "INSERT INTO t (k, n, s, f)";
  const types = ["text", "bigint", "text", "integer"];
  const count = AWKWARD.length;
  const flags = AWKWARD.map((_, i) => (i % 2 === 0 ? null : i));
  await insertColumns(db.db, db.dialect, head, types, count, [
    { same: "same" },
    [...AWKWARD.keys()],
    AWKWARD,
    flags,
  ]);
  // A column of one value in every row given as an array, and a lone row of constants.
  await insertColumns(db.db, db.dialect, head, types, 3, [
    ["many", "many", "many"],
    [100, 101, 102],
    { same: null },
    { same: 7 },
  ]);
  await insertColumns(db.db, db.dialect, head, types, 1, [
    { same: "one" },
    { same: 100 },
    { same: null },
    { same: null },
  ]);
  const rows = await rowsOf(
    db.db,
    sql<{ k: string; n: number; s: string | null; f: number | null }>`SELECT * FROM t ORDER BY k, n`,
  );
  return rows.map((row) => ({ ...row, n: Number(row.n) }));
}

const BY_COLUMNS = [
  ...[100, 101, 102].map((n) => ({ k: "many", n, s: null, f: 7 })),
  { k: "one", n: 100, s: null, f: null },
  ...AWKWARD.map((s, n) => ({ k: "same", n, s, f: n % 2 === 0 ? null : n })),
];

it("insertColumns: on SQLite, every row as given by its columns, a column of one value given once", async () => {
  database = sqlitePlatformDatabase(openSqlite(":memory:"));
  expect(await byColumns(database)).toEqual(BY_COLUMNS);
});

await describePostgres("insertMany on PostgreSQL", () => {
  async function table(): Promise<PlatformDatabase> {
    const db = await openPostgres<any>(testPostgres());
    database = postgresPlatformDatabase(db, undefined);
    await sql`CREATE TABLE t (k TEXT NOT NULL, n BIGINT, s TEXT, f INTEGER, PRIMARY KEY (k, n))`.execute(db);
    return database;
  }
  const read = (db: PlatformDatabase) =>
    rowsOf(
      db.db,
      sql<{ k: string; n: number; s: string | null; f: number | null }>`SELECT * FROM t ORDER BY n`,
    );

  it("insertMany: every row as given, whatever its strings hold, a column of one value sent once or not", async () => {
    const db = await table();
    const rows = AWKWARD.map((s, i) => ["same", i, s, i % 2 === 0 ? null : i]);
    await insertMany(
      db.db,
      "postgres",
      "INSERT INTO t (k, n, s, f)",
      ["text", "bigint", "text", "integer"],
      rows,
    );
    expect(await read(db)).toEqual(rows.map(([k, n, s, f]) => ({ k, n, s, f })));
    // Every column of one value (a single row, or nulls throughout): still one row a row.
    await insertMany(
      db.db,
      "postgres",
      "INSERT INTO t (k, n, s, f)",
      ["text", "bigint", "text", "integer"],
      [["one", 100, null, null]],
    );
    const same = [100, 101, 102].map((n) => ["many", n, null, null]);
    await insertMany(
      db.db,
      "postgres",
      "INSERT INTO t (k, n, s, f)",
      ["text", "bigint", "text", "integer"],
      same,
    );
    const rest = (await read(db)).filter((row) => row.k !== "same");
    expect(rest).toEqual([
      { k: "one", n: 100, s: null, f: null },
      { k: "many", n: 100, s: null, f: null },
      { k: "many", n: 101, s: null, f: null },
      { k: "many", n: 102, s: null, f: null },
    ]);
  });

  it("insertColumns: on PostgreSQL, every row as given by its columns, a column of one value given once", async () => {
    const db = await openPostgres<any>(testPostgres());
    database = postgresPlatformDatabase(db, undefined);
    expect(await byColumns(database)).toEqual(BY_COLUMNS);
  });

  it("transaction: one that need not be durable commits with synchronous_commit off, any other with the server's setting", async () => {
    const db = await table();
    const setting = (durable: boolean) =>
      db.transaction(
        async (trx) =>
          (await rowsOf(trx, sql<{ synchronous_commit: string }>`SHOW synchronous_commit`))[0]!
            .synchronous_commit,
        { durable },
      );
    expect(await setting(false)).toBe("off");
    expect(await setting(true)).toBe("on");
    expect(
      (await rowsOf(db.db, sql<{ synchronous_commit: string }>`SHOW synchronous_commit`))[0]!
        .synchronous_commit,
    ).toBe("on");
  });
});
