import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";

/** Every row of every table of one database, each table's rows as sorted JSON lines. */
export type DatabaseSnapshot = Record<string, string[]>;

/** Both databases of a DATA_DIR: the metadata store and the local platform's. */
export interface StoreSnapshot {
  metadata: DatabaseSnapshot;
  platform: DatabaseSnapshot;
}

/** Where the two databases of a DATA_DIR live. */
export function databaseFiles(dataDir: string): { metadata: string; platform: string } {
  return {
    metadata: join(dataDir, "metadata.sqlite"),
    platform: join(dataDir, "platform", "platform.sqlite"),
  };
}

/**
 * Reads every table of a SQLite file through its own read-only connection (the server's WAL is
 * visible to it), rows sorted so that two snapshots compare with `toEqual`.
 */
export function snapshotDatabase(file: string): DatabaseSnapshot {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[];
    const snapshot: DatabaseSnapshot = {};
    for (const { name } of tables) {
      const rows = db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all();
      snapshot[name] = rows.map((row) => JSON.stringify(row)).sort();
    }
    return snapshot;
  } finally {
    db.close();
  }
}

/** Snapshots both databases of a DATA_DIR. */
export function snapshotStore(dataDir: string): StoreSnapshot {
  const files = databaseFiles(dataDir);
  return { metadata: snapshotDatabase(files.metadata), platform: snapshotDatabase(files.platform) };
}

/** The snapshot without the platform's `blobs` table, for comparisons that allow verified content in. */
export function withoutBlobs(snapshot: StoreSnapshot): StoreSnapshot {
  const { blobs: _blobs, ...platform } = snapshot.platform;
  return { metadata: snapshot.metadata, platform };
}

/** Blob rows present in `after` and not in `before`, parsed. */
export function addedBlobs(
  before: StoreSnapshot,
  after: StoreSnapshot,
): { hash: string; size: number; content_type: string }[] {
  const old = new Set(before.platform.blobs ?? []);
  return (after.platform.blobs ?? []).filter((row) => !old.has(row)).map((row) => JSON.parse(row));
}

/** Blob rows of `before` that `after` no longer holds (or holds changed). */
export function removedBlobs(before: StoreSnapshot, after: StoreSnapshot): string[] {
  const now = new Set(after.platform.blobs ?? []);
  return (before.platform.blobs ?? []).filter((row) => !now.has(row));
}

/** Runs a query on a read-only connection and returns its rows. */
export function queryDatabase<T = any>(file: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check` of a database file: `["ok"]` when it is sound. */
export function integrityCheck(file: string): string[] {
  return queryDatabase<{ integrity_check: string }>(file, "PRAGMA integrity_check").map(
    (row) => row.integrity_check,
  );
}

/** The path of a blob file under a DATA_DIR. */
export function blobPath(dataDir: string, hash: string): string {
  return join(dataDir, "platform", "blobs", hash.slice(0, 2), hash);
}

/**
 * The content of a DATA_DIR's blob store against its rows: rows whose file is missing or of the
 * wrong size, files no row names, and files left in the temporary folder.
 */
export function blobStoreState(dataDir: string): {
  rows: number;
  missingFiles: string[];
  wrongSize: string[];
  unnamedFiles: string[];
  temporaryFiles: string[];
} {
  const rows = queryDatabase<{ hash: string; size: number }>(
    databaseFiles(dataDir).platform,
    "SELECT hash, size FROM blobs",
  );
  const missingFiles: string[] = [];
  const wrongSize: string[] = [];
  for (const row of rows) {
    const path = blobPath(dataDir, row.hash);
    if (!existsSync(path)) missingFiles.push(row.hash);
    else if (statSync(path).size !== row.size) wrongSize.push(row.hash);
  }
  const named = new Set(rows.map((row) => row.hash));
  const root = join(dataDir, "platform", "blobs");
  const unnamedFiles = existsSync(root)
    ? readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && !named.has(entry.name))
        .map((entry) => entry.name)
    : [];
  const tmp = join(dataDir, "platform", "tmp");
  const temporaryFiles = existsSync(tmp) ? readdirSync(tmp) : [];
  return { rows: rows.length, missingFiles, wrongSize, unnamedFiles, temporaryFiles };
}

/** Reads a blob's bytes from a DATA_DIR. */
export function readBlob(dataDir: string, hash: string): Buffer {
  return readFileSync(blobPath(dataDir, hash));
}
