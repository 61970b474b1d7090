import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { type PlatformDatabase, rowsOf } from "./platform-db.js";
import { deleteInSlices } from "./sliced-delete.js";
import { testPlatform, type TestPlatform } from "../../../../test/support/test-platform.js";

let t: TestPlatform | undefined;
afterEach(() => t?.remove());

describe("deleteInSlices", () => {
  it("deleteInSlices: every row of the scope goes, a slice a statement, and no row outside it", async () => {
    t = await testPlatform();
    const db = t.database.db;
    const values = (session: string, count: number) =>
      sql.join(
        Array.from(
          { length: count },
          (_, i) => sql`(${session}, ${`h${i % 7}`}, ${`/${i}`}, 1, 'text/plain')`,
        ),
      );
    await sql`INSERT INTO session_assets (session_id, hash, path, size, content_type)
      VALUES ${values("s1", 1234)}`.execute(db);
    await sql`INSERT INTO session_assets (session_id, hash, path, size, content_type)
      VALUES ${values("s2", 3)}`.execute(db);
    const pacer = new Pacer(0);
    const rows = {
      table: "session_assets",
      scope: [["session_id", "s1"]] as [string, string][],
      key: ["hash", "path"],
    };
    await deleteInSlices(t.database, rows, 100, pacer);
    const left = await rowsOf(db, sql<{ session_id: string }>`SELECT session_id FROM session_assets`);
    expect(left.map((row) => row.session_id)).toEqual(["s2", "s2", "s2"]);
    // 1,234 rows in slices of 100: 13 statements, a pause after each but the last.
    expect(pacer.pauses).toBe(12);
  });

  it("deleteInSlices: only the last slice's commit syncs the log, and none when options.durable is false", async () => {
    t = await testPlatform();
    const db = t.database.db;
    await sql`INSERT INTO session_hashes (session_id, hash, path, size, media_type)
      VALUES ${sql.join(Array.from({ length: 250 }, (_, i) => sql`('s1', ${`h${i}`}, ${`/${i}`}, 1, 'text/plain')`))}`.execute(
      db,
    );
    // The real database, its transactions' options noted on the way.
    const durable: boolean[] = [];
    const noted: PlatformDatabase = Object.create(t.database) as PlatformDatabase;
    noted.transaction = (work, options) => {
      durable.push(options?.durable !== false);
      return t!.database.transaction(work, options);
    };
    const rows = {
      table: "session_hashes",
      scope: [["session_id", "s1"]] as [string, string][],
      key: ["hash"],
    };
    await deleteInSlices(noted, rows, 200, new Pacer(0));
    expect(durable).toEqual([false, true]);
    await sql`INSERT INTO session_hashes (session_id, hash, path, size, media_type)
      VALUES ('s1', 'h', '/', 1, 'text/plain')`.execute(db);
    durable.length = 0;
    await deleteInSlices(noted, rows, 200, new Pacer(0), { durable: false });
    expect(durable).toEqual([false]);
    expect(await rowsOf(db, sql`SELECT 1 FROM session_hashes`)).toEqual([]);
  });

  it("deleteInSlices: slices double while quick, up to eight times the first, and stay at the first size while they overrun the pacer's slice", async () => {
    t = await testPlatform();
    const db = t.database.db;
    const insert = (count: number) =>
      sql`INSERT INTO session_hashes (session_id, hash, path, size, media_type)
        VALUES ${sql.join(Array.from({ length: count }, (_, i) => sql`('s1', ${`h${String(i).padStart(5, "0")}`}, '/', 1, 'text/plain')`))}`.execute(
        db,
      );
    const rows = {
      table: "session_hashes",
      scope: [["session_id", "s1"]] as [string, string][],
      key: ["hash"],
    };
    // The rows each statement deleted, counted on the way.
    const deleted: number[] = [];
    const counted: PlatformDatabase = Object.create(t.database) as PlatformDatabase;
    counted.transaction = async (work, options) => {
      const before = await rowsOf(db, sql<{ n: number }>`SELECT COUNT(*) AS n FROM session_hashes`);
      const result = await t!.database.transaction(work, options);
      const after = await rowsOf(db, sql<{ n: number }>`SELECT COUNT(*) AS n FROM session_hashes`);
      deleted.push(before[0]!.n - after[0]!.n);
      return result;
    };
    // A clock that never moves: every slice is quick.
    await insert(4000);
    await deleteInSlices(counted, rows, 100, new Pacer(20, () => 0));
    expect(deleted).toEqual([100, 200, 400, 800, 800, 800, 800, 100]);
    // A clock that moves 30 ms a read: every slice overruns a 20 ms slice, and none grows.
    await insert(450);
    deleted.length = 0;
    let now = 0;
    await deleteInSlices(counted, rows, 100, new Pacer(20, () => (now += 30)));
    expect(deleted).toEqual([100, 100, 100, 100, 50]);
  });
});
