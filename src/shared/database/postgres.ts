import { Kysely } from "kysely";
import pg from "pg";
import { SchemaScopedPostgresDialect } from "./postgres-dialect.js";

/** How to reach PostgreSQL, and how long to wait for it before giving up. */
export interface PostgresOptions {
  /** A `postgres://user@host:port/database` URL. */
  url: string;
  /** The schema tables live in (search_path); `public` when unset. Created on first use. */
  schema?: string;
  /** Connections this pool opens at most. */
  maxConnections?: number;
  /** How long to wait for a connection (a new one, or a free one of the pool). */
  connectTimeoutMs?: number;
  /** How long one statement may run, on the server and as seen by the client. */
  statementTimeoutMs?: number;
  /** How long an unused connection is kept open. */
  idleTimeoutMs?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /** Told of connection errors that no query is waiting for (an idle connection the server dropped). */
  onIdleError?: (error: Error) => void;
}

export const POSTGRES_DEFAULTS = {
  maxConnections: 10,
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 30_000,
  idleTimeoutMs: 30_000,
} as const;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** True for `postgres://` and `postgresql://` URLs. */
export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

/**
 * A pg Pool whose every wait is bounded: connecting (connectTimeoutMs), each statement (server-side
 * statement_timeout and a client-side query timeout a little longer, for a server that stopped
 * answering), and a transaction left idle. An unreachable database gives an error, never a hang.
 * BIGINT (int8) values are read as numbers: counts and byte sizes stay below 2^53.
 */
export function createPostgresPool(options: PostgresOptions): pg.Pool {
  const settings = { ...POSTGRES_DEFAULTS, ...definedOnly(options) };
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`invalid PostgreSQL schema name: ${options.schema}`);
  }
  const serverOptions = [
    `-c statement_timeout=${settings.statementTimeoutMs}`,
    `-c idle_in_transaction_session_timeout=${settings.statementTimeoutMs * 2}`,
    ...(options.schema === undefined ? [] : [`-c search_path=${options.schema}`]),
  ];
  const pool = new pg.Pool({
    connectionString: options.url,
    max: settings.maxConnections,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    idleTimeoutMillis: settings.idleTimeoutMs,
    query_timeout: settings.statementTimeoutMs + 5_000,
    keepAlive: true,
    application_name: options.applicationName ?? "static-deploy",
    options: serverOptions.join(" "),
    types: { getTypeParser: typeParser },
  });
  // An idle connection the server closed (a restart) must not crash the process: the pool drops
  // it and the next query opens another.
  pool.on("error", (error) => options.onIdleError?.(error));
  // A connection that drops under a query fails that query, and also emits "error" on its client,
  // which nobody listens to while it is checked out: without this listener, a crash.
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

/** A Kysely instance on a new bounded pool (createPostgresPool); its schema is created if missing. */
export async function openPostgres<T>(options: PostgresOptions): Promise<Kysely<T>> {
  const pool = createPostgresPool(options);
  const db = new Kysely<T>({
    dialect: new SchemaScopedPostgresDialect({ pool }, options.schema ?? "public"),
  });
  if (options.schema !== undefined) {
    try {
      await db.schema.createSchema(options.schema).ifNotExists().execute();
    } catch (error) {
      // Two processes creating it at once: one wins, the other's unique violation is harmless.
      if (!isUniqueViolation(error)) {
        await db.destroy();
        throw error;
      }
    }
  }
  return db;
}

/** True when `error` is PostgreSQL's unique_violation (23505). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "23505";
}

const INT8_OID = 20;

function typeParser(oid: number, format?: "text" | "binary"): (value: string) => unknown {
  if (oid === INT8_OID && format !== "binary") return Number;
  return pg.types.getTypeParser(oid, format as "text") as (value: string) => unknown;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
