import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";

/** Every row of every table of one database, each table's rows as sorted JSON lines. */
export type DatabaseSnapshot = Record<string, string[]>;

/** Both databases of a DATA_DIR: the metadata store and the self-hosted platform's. */
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

/**
 * The snapshot without the platform's `blobs` and `packs` tables, for comparisons that allow
 * verified content in.
 */
export function withoutBlobs(snapshot: StoreSnapshot): StoreSnapshot {
  const { blobs: _blobs, packs: _packs, ...platform } = snapshot.platform;
  return { metadata: snapshot.metadata, platform };
}

/**
 * The snapshot with every project's `domain_contested_at` cleared: a 409 against another project's
 * pending claim records that the name is contested and changes nothing else (contract §8).
 */
export function ignoringContest(snapshot: StoreSnapshot): StoreSnapshot {
  const projects = (snapshot.metadata.projects ?? []).map((row) =>
    JSON.stringify({ ...JSON.parse(row), domain_contested_at: null }),
  );
  return { ...snapshot, metadata: { ...snapshot.metadata, projects: projects.sort() } };
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

interface BlobRow {
  hash: string;
  size: number;
  pack: string | null;
  pack_offset: number | null;
}

/** Where a blob's bytes are under a DATA_DIR: its pack (or, before packs, its own file) and range. */
export function blobLocation(dataDir: string, hash: string): { path: string; offset: number; size: number } {
  const [row] = queryDatabase<BlobRow>(
    databaseFiles(dataDir).platform,
    "SELECT hash, size, pack, pack_offset FROM blobs WHERE hash = ?",
    hash,
  );
  if (!row) throw new Error(`no blob row for ${hash}`);
  return locate(dataDir, row);
}

function locate(dataDir: string, row: BlobRow): { path: string; offset: number; size: number } {
  return row.pack === null
    ? { path: join(dataDir, "platform", "blobs", row.hash.slice(0, 2), row.hash), offset: 0, size: row.size }
    : {
        path: join(dataDir, "platform", "packs", `${row.pack}.pack`),
        offset: row.pack_offset ?? 0,
        size: row.size,
      };
}

/**
 * The content of a DATA_DIR against its rows: blob rows whose bytes are missing (no file) or cut
 * short, pack rows whose file is missing or of another size, content files no row names, and
 * files left in the temporary folder.
 */
export function blobStoreState(dataDir: string): {
  rows: number;
  missingFiles: string[];
  wrongSize: string[];
  unnamedFiles: string[];
  temporaryFiles: string[];
} {
  const database = databaseFiles(dataDir).platform;
  const rows = queryDatabase<BlobRow>(
    database,
    "SELECT hash, size, pack, pack_offset FROM blobs WHERE damaged = 0",
  );
  const packs = queryDatabase<{ id: string; size: number }>(database, "SELECT id, size FROM packs");
  const missingFiles: string[] = [];
  const wrongSize: string[] = [];
  for (const row of rows) {
    const { path, offset, size } = locate(dataDir, row);
    if (!existsSync(path)) missingFiles.push(row.hash);
    else if (row.pack === null ? statSync(path).size !== size : statSync(path).size < offset + size)
      wrongSize.push(row.hash);
  }
  for (const pack of packs) {
    const path = join(dataDir, "platform", "packs", `${pack.id}.pack`);
    if (!existsSync(path)) missingFiles.push(`pack ${pack.id}`);
    else if (statSync(path).size !== pack.size) wrongSize.push(`pack ${pack.id}`);
  }
  const named = new Set([
    ...rows.filter((row) => row.pack === null).map((row) => row.hash),
    ...packs.map((pack) => `${pack.id}.pack`),
  ]);
  const unnamedFiles: string[] = [];
  for (const folder of ["blobs", "packs"]) {
    const root = join(dataDir, "platform", folder);
    if (!existsSync(root)) continue;
    for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && !named.has(entry.name)) unnamedFiles.push(entry.name);
    }
  }
  const tmp = join(dataDir, "platform", "tmp");
  const temporaryFiles = existsSync(tmp) ? readdirSync(tmp) : [];
  return { rows: rows.length, missingFiles, wrongSize, unnamedFiles, temporaryFiles };
}

/** Reads a blob's bytes from a DATA_DIR. */
export function readBlob(dataDir: string, hash: string): Buffer {
  const { path, offset, size } = blobLocation(dataDir, hash);
  const file = openSync(path, "r");
  try {
    const body = Buffer.alloc(size);
    readSync(file, body, 0, size, offset);
    return body;
  } finally {
    closeSync(file);
  }
}
