import { type Kysely, sql } from "kysely";
import type { Clock } from "../../core/clock.js";
import type { Store } from "../../core/ports/index.js";
import type { Limiter, RateLimit } from "../../core/rate-limiter.js";
import { migrate, type MigrationReport } from "../../shared/database/migrator.js";
import { isUniqueViolation, openPostgres, type PostgresOptions } from "../../shared/database/postgres.js";
import type { MetadataTables } from "../sql/schema.js";
import { type SqlDialect, SqlStore } from "../sql/sql-store.js";
import { completeDeployStatement } from "./complete-deploy.js";
import { POSTGRES_MIGRATIONS } from "./migrations.js";
import { PostgresRateLimiter } from "./postgres-rate-limiter.js";
import { asUnavailable, guardOutages } from "./unavailable.js";

/** The first key of the store's advisory locks on hostnames (the second is the name's hash). */
export const HOSTNAME_LOCK_SPACE = 0x5d_01;

/**
 * Writers of one hostname (a project created with it, a domain change to or from it, a deletion
 * releasing it) take its advisory transaction lock first, in name order, so that the release
 * read in one transaction cannot be overtaken by one another commits meanwhile.
 */
const POSTGRES: SqlDialect = {
  async lockHostnames(trx, hostnames) {
    const names = [...new Set(hostnames.filter((h): h is string => typeof h === "string"))].sort();
    for (const name of names) {
      await sql`SELECT pg_advisory_xact_lock(${HOSTNAME_LOCK_SPACE}, hashtext(${name}))`.execute(trx);
    }
  },
  isUniqueViolation,
  completeDeploy: completeDeployStatement,
};

/** The metadata store on PostgreSQL, migrated; outages answer DATABASE_UNAVAILABLE. */
export async function openPostgresStore(options: PostgresOptions): Promise<Store> {
  return (await openPostgresMetadata(options)).store;
}

/** What the server keeps in PostgreSQL besides its platform: the store, and limits shared by processes. */
export interface PostgresMetadata {
  store: Store;
  /** A limiter counting into one window per key for every process (RateLimiter's rule and key bound). */
  limiter(scope: string, rule: RateLimit, clock: Clock, maxKeys?: number): Limiter;
  /** Closes the pool both use (the store's `close` does too). */
  close(): Promise<void>;
}

/** Migrates, then opens the store and the shared limiters on one pool. */
export async function openPostgresMetadata(options: PostgresOptions): Promise<PostgresMetadata> {
  await migratePostgresStore(options);
  const db = await openPostgres<MetadataTables>(options).catch(asUnavailable);
  const store = guardOutages(new SqlStore(db, POSTGRES));
  return {
    store,
    limiter: (scope, rule, clock, maxKeys) =>
      guardOutages(new PostgresRateLimiter(db as Kysely<unknown>, scope, rule, clock, maxKeys)),
    close: () => store.close(),
  };
}

/**
 * Brings the store's tables to the latest migration, on a connection of its own whose statements
 * may take as long as a migration needs. Processes starting at once migrate once (the Migrator's
 * advisory lock); the others wait for it, then find nothing to do.
 */
export async function migratePostgresStore(options: PostgresOptions): Promise<MigrationReport> {
  const db = await openPostgres<unknown>({
    ...options,
    maxConnections: 1,
    statementTimeoutMs: 600_000,
    applicationName: "static-deploy migrate",
  }).catch(asUnavailable);
  try {
    return await migrate(db as Kysely<unknown>, POSTGRES_MIGRATIONS, { schema: options.schema ?? "public" });
  } catch (error) {
    return asUnavailable(error);
  } finally {
    await db.destroy();
  }
}
