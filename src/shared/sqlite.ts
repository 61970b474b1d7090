import Database from "better-sqlite3";
import { ensurePrivateFile } from "./private-file.js";

/** A better-sqlite3 connection. */
export type SqliteDatabase = Database.Database;

/**
 * Opens (creating if needed) the SQLite database at `file` with the settings every database of the
 * service shares: WAL, `synchronous = FULL` (an acknowledged write survives a crash), a busy
 * timeout and foreign keys. A new file is created 0600 in a 0700 folder; `:memory:` is left alone.
 */
export function openSqlite(file: string): SqliteDatabase {
  if (file !== ":memory:") ensurePrivateFile(file);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  return db;
}
