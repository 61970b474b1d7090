import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SQLITE_PLATFORM_MIGRATIONS } from "../../src/platform/selfhost/state/migrations/platform-migrations.js";
import { openPlatformDatabase } from "../../src/platform/selfhost/state/sqlite-database.js";
import { tempDir } from "../support/server.js";
import { REVISION_FILES } from "../support/revision-files.js";
import { queryDatabase, snapshotDatabase } from "../support/store-snapshot.js";

// A platform.sqlite written by the code before the Migrator, at the last rung of its schema ladder.
const BEFORE_MIGRATOR = readFileSync(
  new URL("../fixtures/platform-sqlite-before-migrator.sql", import.meta.url),
  "utf8",
);

let dir: ReturnType<typeof tempDir>;
let file: string;
beforeEach(() => {
  dir = tempDir("platform-upgrade-");
  file = join(dir.path, "platform.sqlite");
});
afterEach(() => dir.cleanup());

/** Writes the fixture into `file`, then runs `change` on it (an earlier rung). */
function writeBeforeMigrator(change = ""): void {
  const db = new Database(file);
  db.exec(BEFORE_MIGRATOR);
  db.exec(change);
  db.close();
}

/** Opens and closes the platform database in `path` (migrating it). */
async function openAndClose(path: string): Promise<void> {
  await (await openPlatformDatabase(path)).close();
}

/** The platform tables of a SQLite file: columns, keys, indexes and storage, as SQLite reports them. */
function schemaOf(path: string): Record<string, unknown> {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db
      .prepare(
        `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
          AND name NOT LIKE 'platform_migration%' ORDER BY name`,
      )
      .all() as { name: string; sql: string }[];
    return Object.fromEntries(
      tables.map(({ name, sql }) => {
        const columns = (
          db.prepare("SELECT * FROM pragma_table_info(?)").all(name) as { type: string }[]
        ).map((column) => ({ ...column, type: column.type.toUpperCase() }));
        const indexes = (
          db.prepare("SELECT * FROM pragma_index_list(?) ORDER BY name").all(name) as { name: string }[]
        ).map((index) => ({
          ...index,
          columns: db.prepare("SELECT * FROM pragma_index_info(?)").all(index.name),
        }));
        return [name, { columns, indexes, withoutRowid: /WITHOUT\s+ROWID\s*$/i.test(sql) }];
      }),
    );
  } finally {
    db.close();
  }
}

const applied = () =>
  queryDatabase(file, "SELECT name FROM platform_migration ORDER BY name").map((r) => r.name);
const newFileSchema = async () => {
  const fresh = tempDir("platform-new-");
  try {
    await openAndClose(fresh.path);
    return schemaOf(join(fresh.path, "platform.sqlite"));
  } finally {
    fresh.cleanup();
  }
};

describe("a platform.sqlite written before the Migrator", () => {
  it("openPlatformDatabase: keeps every row, records 0001_platform, and has the schema of a new file; opening again changes nothing", async () => {
    writeBeforeMigrator();
    const before = snapshotDatabase(file);
    expect(Object.keys(before)).toHaveLength(14);
    expect(before["revision_files"]).toHaveLength(5);

    await openAndClose(dir.path);
    const after = snapshotDatabase(file);
    for (const table of Object.keys(before))
      expect(after[table], table).toEqual(withLaterColumns(table, before[table], after));
    expect(applied()).toEqual(Object.keys(SQLITE_PLATFORM_MIGRATIONS));
    expect(applied()[0]).toBe("0001_platform");
    expect(schemaOf(file)).toEqual(await newFileSchema());
    // Each revision's files, read through its manifest, are the rows revision_files held.
    const moved = queryDatabase(file, `SELECT * FROM ${REVISION_FILES} AS f`).map((row) =>
      JSON.stringify(row),
    );
    expect(moved.sort()).toEqual(before["revision_files"]);

    await openAndClose(dir.path);
    expect(snapshotDatabase(file)).toEqual(after);
  });

  it("openPlatformDatabase: a file of an earlier rung (session_assets keyed by path, no quota charges, no session_hashes) gets the schema of a new file, its rows, and what the old ladder filled", async () => {
    writeBeforeMigrator(`
      DROP TABLE session_hashes; DROP INDEX project_charges_client; DROP TABLE project_charges;
      ALTER TABLE revision_files DROP COLUMN compressible; ALTER TABLE revisions DROP COLUMN row_bytes;
      ALTER TABLE session_assets RENAME TO newer; DROP INDEX IF EXISTS session_assets_hash;
      CREATE TABLE session_assets (session_id TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL,
        size INTEGER NOT NULL, content_type TEXT NOT NULL, PRIMARY KEY (session_id, path)) WITHOUT ROWID;
      CREATE INDEX session_assets_hash ON session_assets(hash);
      INSERT INTO session_assets SELECT session_id, path, hash, size, content_type FROM newer;
      DROP TABLE newer;`);
    const fixture = snapshotDatabase(file);

    await openAndClose(dir.path);
    expect(applied()).toEqual(Object.keys(SQLITE_PLATFORM_MIGRATIONS));
    expect(schemaOf(file)).toEqual(await newFileSchema());
    const after = snapshotDatabase(file);
    for (const table of [
      "blobs",
      "packs",
      "upload_sessions",
      "session_blobs",
      "sites",
      "site_hosts",
      "settings",
    ])
      expect(after[table], table).toEqual(withLaterColumns(table, fixture[table], after));
    // Rows of a column added now get its default; revisions get their row charge counted, as at
    // publish (the values the dump's code wrote); each session's hashes get a row.
    expect(queryDatabase(file, "SELECT DISTINCT compressible FROM session_assets")).toEqual([
      { compressible: 0 },
    ]);
    expect(queryDatabase(file, "SELECT COUNT(*) AS n FROM session_assets")).toEqual([{ n: 8 }]);
    expect(queryDatabase(file, "SELECT revision_id, row_bytes FROM revisions ORDER BY revision_id")).toEqual([
      { revision_id: "9ibe4sfvyc", row_bytes: 896 },
      { revision_id: "q6jgnlih1n", row_bytes: 596 },
    ]);
    expect(
      queryDatabase(
        file,
        "SELECT session_id, hash, path, size FROM session_hashes WHERE session_id LIKE 'df%' ORDER BY hash",
      ),
    ).toEqual([
      {
        session_id: "dfySpTa_zC-jANM42cLLfA",
        hash: "0cf3bdbcd6e9e0120ab490d8d53bd892",
        path: "/index.html",
        size: 16,
      },
      {
        session_id: "dfySpTa_zC-jANM42cLLfA",
        hash: "bdb4c5362de6440eb0e07574e4c76153",
        path: "/a.txt",
        size: 1,
      },
    ]);
    expect(queryDatabase(file, "SELECT COUNT(*) AS n FROM session_hashes")).toEqual([{ n: 7 }]);
  });
});

/**
 * A table's rows of the dump as the migrations after 0001 leave them: the columns they add
 * appended (sqlite/0002_session_published: upload_sessions.published_revision; 0003_manifests:
 * upload_sessions.manifest_digest, empty, and revisions.manifest_id, the manifest made of each
 * revision's files, named by its id; 0004_delta_sessions: upload_sessions.base_manifest_id,
 * file_count and row_bytes, empty; 0006_charge_exact: project_charges.charge_exact, 0: a charge
 * recorded before is summed whole again); revision_files gone (its rows are the manifests').
 */
function withLaterColumns(
  table: string,
  rows: string[] | undefined,
  after: Record<string, string[]>,
): string[] | undefined {
  if (table === "revision_files") return undefined;
  // session_hashes.paths_compressible: 1 when a row of the session's of the hash is compressible.
  const compressible = new Set(
    (after["session_assets"] ?? [])
      .map((row) => JSON.parse(row) as Record<string, unknown>)
      .filter((row) => row["compressible"] === 1)
      .map((row) => `${String(row["session_id"])} ${String(row["hash"])}`),
  );
  const added: (row: Record<string, unknown>) => Record<string, unknown> =
    table === "upload_sessions"
      ? () => ({
          published_revision: null,
          manifest_digest: null,
          base_manifest_id: null,
          file_count: null,
          row_bytes: null,
        })
      : table === "revisions"
        ? (row) => ({ manifest_id: row["revision_id"] })
        : table === "project_charges"
          ? () => ({ charge_exact: 0 })
          : table === "session_hashes"
            ? (row) => ({
                paths_compressible: compressible.has(`${String(row["session_id"])} ${String(row["hash"])}`)
                  ? 1
                  : 0,
              })
            : () => ({});
  if (rows === undefined) return rows;
  return rows
    .map((row) => {
      const parsed = JSON.parse(row) as Record<string, unknown>;
      return JSON.stringify({ ...parsed, ...added(parsed) });
    })
    .sort();
}
