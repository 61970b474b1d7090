import Database from "better-sqlite3";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { ROWS_PER_SLICE } from "../sessions/session-rows.js";
import { ROWS_PER_COMMIT, inOrderedSlices } from "./row-slices.js";
import { testPlatform, type TestPlatform } from "../../../../test/support/test-platform.js";

let t: TestPlatform | undefined;
afterEach(() => t?.remove());

describe("inOrderedSlices", () => {
  it("inOrderedSlices: on SQLite, every range once, ROWS_PER_COMMIT rows a commit, the event loop free between ranges", async () => {
    t = await testPlatform();
    const db = t.database.db;
    const total = 3 * ROWS_PER_COMMIT + 7;
    await sql`CREATE TABLE source (k INTEGER PRIMARY KEY)`.execute(db);
    await sql`CREATE TABLE copied (k INTEGER PRIMARY KEY)`.execute(db);
    await sql`WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ${total})
      INSERT INTO source SELECT k FROM n`.execute(db);
    // What another connection sees committed, read on every turn of the event loop.
    const other = new Database(join(t.dir, "platform.sqlite"), { readonly: true });
    const seen = new Set<number>();
    let turns = 0;
    let copying = true;
    const watch = () => {
      if (!copying) return;
      turns++;
      seen.add((other.prepare("SELECT COUNT(*) AS n FROM copied").get() as { n: number }).n);
      setImmediate(watch);
    };
    setImmediate(watch);
    const rows = { table: "source", alias: "s", scope: sql`1 = 1`, key: ["k"] };
    // A pacer whose slices always overrun: ranges keep their first size.
    const done = await inOrderedSlices(t.database, rows, new Pacer(0), async (trx, range) => {
      await sql`INSERT INTO copied SELECT s.k FROM source AS s WHERE ${range}`.execute(trx);
      return true;
    });
    copying = false;
    other.close();
    expect(done).toBe(true);
    const copied = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM copied`.execute(db);
    expect(copied.rows[0]!.n).toBe(total);
    // Commits only ever showed whole transactions of ROWS_PER_COMMIT rows.
    const commits = [...seen].filter((n) => n < total).sort((a, b) => a - b);
    expect(commits).toEqual([0, ROWS_PER_COMMIT, 2 * ROWS_PER_COMMIT, 3 * ROWS_PER_COMMIT]);
    // Yet the event loop turned between ranges, not only between commits.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(total / ROWS_PER_SLICE));
  });
});
