import { join } from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { PlatformTable, PlatformTables } from "../../src/platform/selfhost/state/platform-tables.js";
import {
  openPlatformDatabase,
  type PlatformDatabase,
} from "../../src/platform/selfhost/state/sqlite-database.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { tempDir } from "../support/server.js";

/**
 * Every column of PlatformTables, by table, in the order the migrations give them. The compiler
 * checks it against the type both ways: a table or column missing here, or one the type lacks,
 * does not compile.
 */
const TYPED = {
  blobs: ["hash", "size", "created_at", "pack", "pack_offset", "damaged"],
  packs: ["id", "size", "live_bytes", "created_at"],
  upload_sessions: [
    "id",
    "project_slug",
    "created_at",
    "expires_at",
    "client_address",
    "pending_bytes",
    "asset_hashes",
    "published_revision",
  ],
  session_assets: ["session_id", "path", "hash", "size", "content_type", "compressible"],
  session_hashes: ["session_id", "hash", "path", "size", "media_type", "compressible"],
  session_blobs: ["session_id", "hash"],
  sites: ["project_slug", "revision_id", "expires_at", "production_since"],
  site_hosts: ["hostname", "project_slug", "canonical_url"],
  site_aliases: ["project_slug", "alias", "revision_id", "since"],
  revisions: ["project_slug", "revision_id", "created_at", "row_bytes"],
  revision_files: ["project_slug", "revision_id", "path", "hash", "content_type", "compressible"],
  revision_rules: ["project_slug", "revision_id", "rules"],
  project_charges: ["project_slug", "client_address", "created_at", "charged_bytes"],
  settings: ["key", "value"],
} as const satisfies { [T in PlatformTable]: readonly (keyof PlatformTables[T])[] };
type Untyped = {
  [T in PlatformTable]: Exclude<keyof PlatformTables[T], (typeof TYPED)[T][number]>;
}[PlatformTable];
const everyColumnListed: [Untyped] extends [never] ? true : Untyped = true;

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

const expected = Object.fromEntries(Object.entries(TYPED).sort(([a], [b]) => (a < b ? -1 : 1)));

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
