import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite, type SqliteDatabase } from "../../../shared/database/sqlite.js";
import { openPlatformDatabase, type PlatformDatabase, settingOrCreate } from "./sqlite-database.js";
import type { PlatformTable, PlatformTables } from "./platform-tables.js";
import { PLATFORM_COLUMNS } from "../../../../test/support/platform-columns.js";

let dir: string;
let opened: PlatformDatabase[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "platform-database-"));
  opened = [];
});
afterEach(async () => {
  for (const database of opened) await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = async () => {
  const database = await openPlatformDatabase(dir);
  opened.push(database);
  return database;
};
const sqliteOf = (database: PlatformDatabase): SqliteDatabase => database.sqlite!;
const columnsOf = (db: SqliteDatabase, table: string) =>
  (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string; pk: number }[]).map(
    (c) => `${c.name}${c.pk ? `#${c.pk}` : ""}`,
  );
const indexesOf = (db: SqliteDatabase) =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as {
      name: string;
    }[]
  )
    .map((row) => row.name)
    .sort();
const rows = (db: SqliteDatabase, query: string) => db.prepare(query).all();

/** A platform database as the first versions left it: no packs, no deduplication, no later columns. */
function writeOldDatabase(): void {
  const db = openSqlite(join(dir, "platform.sqlite"));
  db.exec(`
    CREATE TABLE blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE upload_sessions (id TEXT PRIMARY KEY, project_slug TEXT NOT NULL, created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE session_assets (session_id TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL,
      size INTEGER NOT NULL, content_type TEXT NOT NULL, PRIMARY KEY (session_id, path)) WITHOUT ROWID;
    CREATE INDEX session_assets_hash ON session_assets(hash);
    CREATE TABLE sites (project_slug TEXT PRIMARY KEY, revision_id TEXT, expires_at INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE site_hosts (hostname TEXT PRIMARY KEY, project_slug TEXT NOT NULL) WITHOUT ROWID;
    INSERT INTO blobs VALUES ('held', 5, 1);
    INSERT INTO upload_sessions VALUES ('s1', 'blue-fox-k3', 1, 100);
    INSERT INTO session_assets VALUES ('s1', '/a', 'held', 5, 'text/plain'), ('s1', '/b', 'missing', 7, 'text/css'),
      ('s1', '/c', 'missing', 9, 'text/css');
    INSERT INTO sites VALUES ('blue-fox-k3', NULL, 100);
    INSERT INTO site_hosts VALUES ('blue-fox-k3.localhost', 'blue-fox-k3');
  `);
  db.close();
}

/** The primary key of each table whose columns these tests check, column by column in its order. */
const PRIMARY_KEYS = {
  blobs: ["hash"],
  upload_sessions: ["id"],
  session_assets: ["session_id", "path"],
  session_hashes: ["session_id", "hash"],
  project_charges: ["project_slug"],
  manifests: ["project_slug", "id"],
  manifest_files: ["project_slug", "manifest_id", "path"],
  manifest_hashes: ["project_slug", "manifest_id", "hash"],
  sites: ["project_slug"],
  site_hosts: ["hostname"],
} as const satisfies { [T in PlatformTable]?: readonly (keyof PlatformTables[T])[] };

/** `table`'s columns as columnsOf gives them: a column of the key with its place in it (`hash#2`). */
function keyedColumns(table: keyof typeof PRIMARY_KEYS): string[] {
  const key: readonly string[] = PRIMARY_KEYS[table];
  return PLATFORM_COLUMNS[table].map((column) =>
    key.includes(column) ? `${column}#${key.indexOf(column) + 1}` : column,
  );
}

/** The columns of today's tables, those of PRIMARY_KEYS. */
const CURRENT = Object.fromEntries(
  Object.keys(PRIMARY_KEYS).map((table) => [table, keyedColumns(table as keyof typeof PRIMARY_KEYS)]),
);
const INDEXES = [
  "blobs_damaged",
  "blobs_pack",
  "manifest_hashes_hash",
  "manifest_hashes_project_hash",
  "manifests_base",
  "manifests_digest",
  "project_charges_client",
  "session_blobs_hash",
  "session_hashes_hash",
  "site_hosts_project",
  "upload_sessions_address",
  "upload_sessions_project",
];

describe("openPlatformDatabase", () => {
  it("openPlatformDatabase: a new dir gets platform.sqlite with every table, column and index; opening it again changes nothing", async () => {
    const first = await open();
    expect(first.dialect).toBe("sqlite");
    expect(existsSync(join(dir, "platform.sqlite"))).toBe(true);
    const db = sqliteOf(first);
    for (const [table, columns] of Object.entries(CURRENT)) expect(columnsOf(db, table)).toEqual(columns);
    expect(columnsOf(db, "revision_rules")).not.toEqual([]);
    expect(columnsOf(db, "settings")).toEqual(["key#1", "value"]);
    expect(indexesOf(db)).toEqual(INDEXES);
    db.exec("INSERT INTO upload_sessions (id, project_slug, created_at, expires_at) VALUES ('s', 'p', 1, 2)");
    db.exec("INSERT INTO blobs (hash, size, created_at) VALUES ('h', 1, 1)");
    expect(rows(db, "SELECT pending_bytes, client_address, asset_hashes FROM upload_sessions")).toEqual([
      { pending_bytes: 0, client_address: null, asset_hashes: null },
    ]);
    expect(rows(db, "SELECT pack, pack_offset, damaged FROM blobs")).toEqual([
      { pack: null, pack_offset: null, damaged: 0 },
    ]);
    // A session of today whose held blob has no session_blobs row keeps it so across an opening.
    db.exec("INSERT INTO session_assets VALUES ('s', '/x', 'h', 1, 'text/plain', 0)");
    await first.close();
    const again = sqliteOf(await open());
    for (const [table, columns] of Object.entries(CURRENT)) expect(columnsOf(again, table)).toEqual(columns);
    expect(indexesOf(again)).toEqual(INDEXES);
    expect(rows(again, "SELECT * FROM session_blobs")).toEqual([]);
    expect(rows(again, "SELECT session_id, path FROM session_assets")).toEqual([
      { session_id: "s", path: "/x" },
    ]);
  });

  it("openPlatformDatabase: a database of the first version gets the later columns empty, session_assets keyed by path with its rows, session_hashes with a row per hash of each session (whether a path of it is compressible), and its sessions keep the held content they name", async () => {
    writeOldDatabase();
    const db = sqliteOf(await open());
    for (const [table, columns] of Object.entries(CURRENT)) expect(columnsOf(db, table)).toEqual(columns);
    expect(indexesOf(db)).toEqual(INDEXES);
    expect(rows(db, "SELECT name FROM sqlite_master WHERE name = 'session_assets_by_path'")).toEqual([]);
    expect(rows(db, "SELECT * FROM session_assets ORDER BY path")).toEqual([
      { session_id: "s1", path: "/a", hash: "held", size: 5, content_type: "text/plain", compressible: 0 },
      { session_id: "s1", path: "/b", hash: "missing", size: 7, content_type: "text/css", compressible: 0 },
      { session_id: "s1", path: "/c", hash: "missing", size: 9, content_type: "text/css", compressible: 0 },
    ]);
    expect(rows(db, "SELECT * FROM session_blobs")).toEqual([{ session_id: "s1", hash: "held" }]);
    // Each hash of a session once: its smallest path, its largest size, no media type declared.
    expect(rows(db, "SELECT * FROM session_hashes ORDER BY hash")).toEqual([
      {
        session_id: "s1",
        hash: "held",
        path: "/a",
        size: 5,
        media_type: null,
        compressible: null,
        paths_compressible: 0,
      },
      {
        session_id: "s1",
        hash: "missing",
        path: "/b",
        size: 9,
        media_type: null,
        compressible: null,
        paths_compressible: 0,
      },
    ]);
    expect(
      rows(db, "SELECT client_address, pending_bytes, asset_hashes, published_revision FROM upload_sessions"),
    ).toEqual([{ client_address: null, pending_bytes: 0, asset_hashes: null, published_revision: null }]);
    expect(rows(db, "SELECT pack, pack_offset, damaged FROM blobs")).toEqual([
      { pack: null, pack_offset: null, damaged: 0 },
    ]);
    expect(rows(db, "SELECT production_since FROM sites")).toEqual([{ production_since: null }]);
    expect(rows(db, "SELECT canonical_url FROM site_hosts")).toEqual([{ canonical_url: null }]);
  });
});

describe("settingOrCreate", () => {
  it("settingOrCreate: the first call stores create()'s value; later calls read it without calling create", async () => {
    const database = await open();
    let calls = 0;
    const create = () => `value ${++calls}`;
    expect(await settingOrCreate(database, "secret", create)).toBe("value 1");
    expect(await settingOrCreate(database, "secret", create)).toBe("value 1");
    expect(calls).toBe(1);
    expect(await settingOrCreate(database, "other", () => "another")).toBe("another");
  });

  it("settingOrCreate: two callers at once both get the first writer's value", async () => {
    const database = await open();
    const values = await Promise.all([
      settingOrCreate(database, "key", () => "first"),
      settingOrCreate(database, "key", () => "second"),
    ]);
    expect(values).toEqual(["first", "first"]);
  });
});
