import { Kysely, type RawBuilder, sql, SqliteDialect } from "kysely";
import { type SqliteDatabase, withStatementCache } from "../../../shared/database/sqlite.js";
import type { PlatformTables } from "./platform-tables.js";

/** The SQL engine under the platform database. */
export type SqlDialect = "sqlite" | "postgres";

/** Runs statements: the database itself, or one of its transactions. */
export type Executor = Kysely<PlatformTables>;

/**
 * The self-hosted platform's database, reached through Kysely: SQLite (the embedded default) or
 * PostgreSQL. Statements are written once in the SQL both engines accept (`ON CONFLICT`,
 * `RETURNING`, row values); what differs is asked of `dialect`.
 */
export interface PlatformDatabase {
  readonly dialect: SqlDialect;
  /** Runs statements outside any transaction (each one on its own). */
  readonly db: Executor;
  /** The SQLite connection underneath, on SQLite only (its manifest triggers live on it). */
  readonly sqlite: SqliteDatabase | undefined;
  /**
   * Runs `work` in one transaction, committed when it resolves and rolled back when it throws. On
   * SQLite no other statement of the process runs meanwhile (one connection, taken in turn). On
   * PostgreSQL it runs again when the server rolled it back for a deadlock: `work` must change
   * nothing outside the database.
   */
  transaction<T>(work: (trx: Executor) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Calls `listener` whenever another connection (another process) may have written the
   * published manifest, with the project written, or with none when it may have been any (a
   * notification missed); on SQLite, written by this process only, never.
   */
  onManifestChange(listener: (projectSlug?: string) => void): void;
  /**
   * Resolves once other processes' writes are heard (at once on SQLite): a reader's caches are
   * dropped once more when that starts, for what came before it.
   */
  manifestHeard(): Promise<void>;
  /** Whether `close` has not been called yet. */
  readonly open: boolean;
  close(): Promise<void>;
}

/** How a transaction commits. */
export interface TransactionOptions {
  /**
   * false for a step of a longer change that a later durable commit completes before anyone is
   * told (a slice of a prepare, a publish or a deletion): on SQLite its commit does not wait for
   * the disk (`synchronous = NORMAL` for it), and the next durable commit's sync of the log makes
   * it durable too (the log is written in order). A crash before that may lose it, never half of
   * it. Each commit's sync held the thread the service shares 12 to 100 ms on a busy machine,
   * hundreds of them a large deploy (issue 31). On PostgreSQL it commits with
   * `synchronous_commit = off`: a slice of prepare no longer waits for a flush of the log (issue 32).
   */
  durable?: boolean;
}

/** The options of a transaction that a later durable commit completes (TransactionOptions). */
export const NOT_DURABLE: TransactionOptions = { durable: false };

/**
 * Wraps an open better-sqlite3 connection as the platform database; `beforeClose` runs first when
 * it is closed (its checkpoint worker stops).
 */
export function sqlitePlatformDatabase(
  sqlite: SqliteDatabase,
  beforeClose?: () => Promise<void>,
): PlatformDatabase {
  const db = new Kysely<PlatformTables>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
  });
  let open = true;
  return {
    dialect: "sqlite",
    db,
    sqlite,
    transaction: (work, options) =>
      options?.durable === false
        ? // The connection is held from the pragma to its reset: no other statement runs between.
          db.connection().execute(async (connection) => {
            await sql`PRAGMA synchronous = NORMAL`.execute(connection);
            try {
              return await connection.transaction().execute(work);
            } finally {
              await sql`PRAGMA synchronous = FULL`.execute(connection);
            }
          })
        : db.transaction().execute(work),
    onManifestChange: () => undefined,
    manifestHeard: () => Promise.resolve(),
    get open() {
      return open;
    },
    close: async () => {
      if (!open) return;
      open = false;
      await beforeClose?.();
      await db.destroy();
    },
  };
}

/** The rows a query returns. */
export async function rowsOf<T>(executor: Executor, query: RawBuilder<T>): Promise<T[]> {
  return (await query.execute(executor)).rows;
}

/** The first row a query returns, or undefined. */
export async function firstOf<T>(executor: Executor, query: RawBuilder<T>): Promise<T | undefined> {
  return (await query.execute(executor)).rows[0];
}

/** How many rows a statement (INSERT, UPDATE, DELETE without RETURNING) changed. */
export async function changesOf(executor: Executor, query: RawBuilder<unknown>): Promise<number> {
  return Number((await query.execute(executor)).numAffectedRows ?? 0n);
}

/** `items` in slices of at most `size` (bounded statements: engines cap a statement's parameters). */
export function slicesOf<T>(items: readonly T[], size: number): T[][] {
  const slices: T[][] = [];
  for (let i = 0; i < items.length; i += size) slices.push(items.slice(i, i + size));
  return slices;
}

/** `FOR UPDATE` on PostgreSQL (the rows locked to the end of the transaction); SQLite needs none. */
export function forUpdate(dialect: SqlDialect): RawBuilder<unknown> {
  return dialect === "postgres" ? sql`FOR UPDATE` : sql``;
}

/**
 * Takes, to the end of the transaction, PostgreSQL's advisory lock on the content index: `shared`
 * by writers that add rows naming blobs, `exclusive` by what deletes blobs nothing names (the
 * collection), so a blob is never deleted between a writer finding it and its row naming it.
 * On SQLite a transaction is alone already.
 */
export async function lockContent(
  database: PlatformDatabase,
  trx: Executor,
  mode: "shared" | "exclusive",
): Promise<void> {
  if (database.dialect !== "postgres") return;
  const lock = mode === "shared" ? sql`pg_advisory_xact_lock_shared` : sql`pg_advisory_xact_lock`;
  await sql`SELECT ${lock}(hashtext(${"platform content"}))`.execute(trx);
}

/**
 * Takes PostgreSQL's advisory locks on `keys` to the end of the transaction (in one order, so two
 * transactions never wait for each other): what counts a quota, say, before it reserves. One
 * statement for them all: its select list is evaluated left to right, so the order holds.
 */
export async function lockKeys(database: PlatformDatabase, trx: Executor, keys: string[]): Promise<void> {
  if (database.dialect !== "postgres" || keys.length === 0) return;
  const locks = [...new Set(keys)]
    .sort()
    .map((key) => sql`pg_advisory_xact_lock(hashtext(${`platform ${key}`}))`);
  await sql`SELECT ${sql.join(locks)}`.execute(trx);
}
