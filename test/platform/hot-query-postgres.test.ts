import { sql } from "kysely";
import { afterEach, beforeEach, expect, it } from "vitest";
import { hotQuery } from "../../src/platform/selfhost/state/hot-query.js";
import { firstOf, type PlatformDatabase } from "../../src/platform/selfhost/state/platform-db.js";
import { openPostgresPlatformDatabase } from "../../src/platform/selfhost/state/postgres-database.js";
import { describePostgres, testPostgres } from "../support/postgres.js";

// The unit tests beside hot-query.ts run it on SQLite; on PostgreSQL it always goes through Kysely.
await describePostgres("hotQuery on PostgreSQL", () => {
  let database: PlatformDatabase;

  beforeEach(async () => {
    database = await openPostgresPlatformDatabase(testPostgres());
    await sql`CREATE TABLE t (k TEXT, v INTEGER)`.execute(database.db);
    await sql`INSERT INTO t VALUES ('a', 1), ('b', 2), ('c', 3)`.execute(database.db);
  });
  afterEach(() => database.close());

  it("hotQuery: on PostgreSQL, the row Kysely gives, or undefined when there is none", async () => {
    const query = (first: string, second: string) =>
      sql<{ n: number; top: string | null }>`SELECT COUNT(*) AS n, MAX(k) AS top FROM t
        WHERE k = ${first} OR k = ${second}`;
    const hot = hotQuery(database, query);
    expect(await hot("a", "c")).toEqual({ n: 2, top: "c" });
    expect(await hot("c", "x")).toEqual(await firstOf(database.db, query("c", "x")));
    const single = hotQuery(database, (k: string) => sql<{ v: number }>`SELECT v FROM t WHERE k = ${k}`);
    expect(await single("b")).toEqual({ v: 2 });
    expect(await single("none")).toBeUndefined();
  });
});
