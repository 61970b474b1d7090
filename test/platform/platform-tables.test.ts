import { join } from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import {
  openPlatformDatabase,
  type PlatformDatabase,
} from "../../src/platform/selfhost/state/sqlite-database.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { tempDir } from "../support/server.js";
import { everyColumnListed, PLATFORM_COLUMNS } from "../support/platform-columns.js";

/** The columns of each table of the database, in order (the Migrator's own tables left out). */
async function columnsOf(database: PlatformDatabase): Promise<Record<string, string[]>> {
  const query =
    database.dialect === "sqlite"
      ? sql<{ table: string; column: string }>`SELECT m.name AS "table", c.name AS "column"
          FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' ORDER BY m.name, c.cid`
      : sql<{ table: string; column: string }>`SELECT table_name AS "table", column_name AS "column"
          FROM information_schema.columns WHERE table_schema = current_schema()
          ORDER BY table_name, ordinal_position`;
  const columns: Record<string, string[]> = {};
  for (const { table, column } of (await query.execute(database.db)).rows) {
    if (!table.startsWith("platform_migration")) (columns[table] ??= []).push(column);
  }
  return columns;
}

const expected = Object.fromEntries(Object.entries(PLATFORM_COLUMNS).sort(([a], [b]) => (a < b ? -1 : 1)));

describe("PlatformTables", () => {
  it("openPlatformDatabase: a new SQLite file has exactly the tables and columns PlatformTables declares", async () => {
    expect(everyColumnListed).toBe(true);
    const dir = tempDir("platform-tables-");
    const database = await openPlatformDatabase(join(dir.path));
    try {
      expect(await columnsOf(database)).toEqual(expected);
    } finally {
      await database.close();
      dir.cleanup();
    }
  });
});

await describePostgres("PlatformTables on PostgreSQL", () => {
  it("openPlatformDatabase: a new PostgreSQL schema has exactly the tables and columns PlatformTables declares", async () => {
    const dir = tempDir("platform-tables-pg-");
    const database = await openPlatformDatabase(dir.path, testPostgres());
    try {
      expect(await columnsOf(database)).toEqual(expected);
    } finally {
      await database.close();
      dir.cleanup();
    }
  });
});
