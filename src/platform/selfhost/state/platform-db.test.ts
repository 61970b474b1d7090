import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../../shared/database/sqlite.js";
import {
  changesOf,
  type Executor,
  firstOf,
  forUpdate,
  lockContent,
  lockKeys,
  type PlatformDatabase,
  rowsOf,
  slicesOf,
  sqlitePlatformDatabase,
} from "./platform-db.js";

let dir: string;
let database: PlatformDatabase;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "platform-db-"));
  const sqlite = openSqlite(join(dir, "t.sqlite"));
  sqlite.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)");
  database = sqlitePlatformDatabase(sqlite);
  await sql`INSERT INTO t VALUES ('a', 1), ('b', 2), ('c', 3)`.execute(database.db);
});
afterEach(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const values = async () =>
  (await rowsOf(database.db, sql<{ v: number }>`SELECT v FROM t ORDER BY k`)).map((r) => r.v);

describe("sqlitePlatformDatabase", () => {
  it("sqlitePlatformDatabase: dialect sqlite over the connection given, open until the first close (a second close does nothing)", async () => {
    expect(database.dialect).toBe("sqlite");
    expect(database.sqlite!.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 3 });
    expect(database.open).toBe(true);
    const sqlite = database.sqlite!;
    const closeSqlite = sqlite.close.bind(sqlite);
    let closes = 0;
    sqlite.close = () => {
      closes++;
      return closeSqlite();
    };
    await database.close();
    expect(database.open).toBe(false);
    await database.close();
    expect(database.open).toBe(false);
    expect(closes).toBe(1);
    await expect(sql`SELECT 1`.execute(database.db)).rejects.toThrow();
  });

  it("transaction: committed when work resolves, with its value; rolled back whole when it throws", async () => {
    const value = await database.transaction(async (trx) => {
      await sql`UPDATE t SET v = 10 WHERE k = 'a'`.execute(trx);
      return "done";
    });
    expect(value).toBe("done");
    await expect(
      database.transaction(async (trx) => {
        await sql`UPDATE t SET v = 20 WHERE k = 'b'`.execute(trx);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await values()).toEqual([10, 2, 3]);
  });

  it("transaction: one that need not be durable commits with synchronous NORMAL (no sync of the log), rolls back whole when it throws, and every other statement runs with FULL", async () => {
    const level = async (executor: Executor) =>
      (await firstOf(executor, sql<{ synchronous: number }>`PRAGMA synchronous`))!.synchronous;
    const FULL = 2;
    const NORMAL = 1;
    // Another request's statement, queued while the slice holds the connection, runs after it.
    let queued: Promise<number> | undefined;
    const inSlice = await database.transaction(
      async (trx) => {
        queued = level(database.db);
        await sql`UPDATE t SET v = 10 WHERE k = 'a'`.execute(trx);
        return level(trx);
      },
      { durable: false },
    );
    expect(inSlice).toBe(NORMAL);
    expect(await queued).toBe(FULL);
    await expect(
      database.transaction(
        async (trx) => {
          await sql`UPDATE t SET v = 20 WHERE k = 'b'`.execute(trx);
          throw new Error("boom");
        },
        { durable: false },
      ),
    ).rejects.toThrow("boom");
    expect(await values()).toEqual([10, 2, 3]);
    expect(await level(database.db)).toBe(FULL);
    expect(await database.transaction((trx) => level(trx))).toBe(FULL);
  });

  it("onManifestChange, manifestHeard: on SQLite the listener is never called and writes are heard at once", async () => {
    let calls = 0;
    database.onManifestChange(() => calls++);
    await sql`UPDATE t SET v = 5`.execute(database.db);
    await expect(database.manifestHeard()).resolves.toBeUndefined();
    expect(calls).toBe(0);
  });
});

describe("query helpers", () => {
  it("rowsOf, firstOf: every row, or the first row or undefined", async () => {
    expect(await values()).toEqual([1, 2, 3]);
    expect(await firstOf(database.db, sql<{ v: number }>`SELECT v FROM t WHERE v > 1 ORDER BY v`)).toEqual({
      v: 2,
    });
    expect(await firstOf(database.db, sql`SELECT v FROM t WHERE v > 9`)).toBeUndefined();
  });

  it("changesOf: how many rows a statement changed, 0 for none", async () => {
    expect(await changesOf(database.db, sql`UPDATE t SET v = v + 1 WHERE v >= 2`)).toBe(2);
    expect(await changesOf(database.db, sql`DELETE FROM t WHERE k = 'none'`)).toBe(0);
    expect(await changesOf(database.db, sql`SELECT 1`)).toBe(0);
  });

  it("slicesOf: in order, each at most `size`, the last the rest; none for no items", () => {
    expect(slicesOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(slicesOf([1, 2, 3, 4], 2)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(slicesOf([1], 3)).toEqual([[1]]);
    expect(slicesOf([], 3)).toEqual([]);
  });

  it("forUpdate: FOR UPDATE on PostgreSQL, nothing on SQLite", () => {
    expect(forUpdate("postgres").compile(database.db).sql).toBe("FOR UPDATE");
    expect(forUpdate("sqlite").compile(database.db).sql).toBe("");
  });

  it("lockContent, lockKeys: on SQLite no statement is run", async () => {
    const statements: string[] = [];
    const trace = database.sqlite!;
    const prepare = trace.prepare.bind(trace);
    trace.prepare = ((source: string) => {
      statements.push(source);
      return prepare(source);
    }) as typeof trace.prepare;
    await database.transaction(async (trx) => {
      await lockContent(database, trx, "exclusive");
      await lockContent(database, trx, "shared");
      await lockKeys(database, trx, ["b", "a"]);
    });
    expect(statements.filter((s) => !/^(begin|commit)$/i.test(s))).toEqual([]);
  });
});
