import Database from "better-sqlite3";
import { ensurePrivateFile } from "../private-file.js";

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

/** How many distinct SQL texts keep their prepared statement (the service has a few hundred). */
const STATEMENT_CACHE_SIZE = 512;

/**
 * Kysely's SQLite dialect prepares every query anew: the upload service's per-part lookups spent
 * a third of their time in `prepare`. This hands Kysely the connection with its statements kept
 * by SQL text (least recently used dropped past the bound); a statement runs to completion
 * synchronously (`all`, `run`), so sharing one between queries is safe.
 */
export function withStatementCache(db: SqliteDatabase): KyselySqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => db.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement !== undefined) {
        // Moved to the end: the Map's order is the recency order.
        cache.delete(sql);
      } else {
        statement = db.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}

/** What Kysely's SqliteDialect takes: a connection that prepares statements. */
export interface KyselySqliteDatabase {
  close(): void;
  prepare(sql: string): Database.Statement;
}
