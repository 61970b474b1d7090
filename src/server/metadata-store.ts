import { join } from "node:path";
import type { Clock } from "../core/clock.js";
import type { Locks, Store } from "../core/ports/index.js";
import type { Limiter, RateLimit } from "../core/rate-limiter.js";
import type { MigrationReport } from "../shared/database/migrator.js";
import type { PostgresOptions } from "../shared/database/postgres.js";
import {
  migratePostgresStore,
  migrateSqliteStore,
  openPostgresMetadata,
  openSqliteStore,
  PostgresLocks,
} from "../store/index.js";
import type { ServerConfig } from "./config.js";
import { type ConnectionBudget, connectionBudget } from "./connection-budget.js";
import { ALL_ROLES } from "./roles.js";

/** The metadata store the settings choose, and the per-project locks that go with it. */
export interface MetadataStore {
  store: Store;
  /** Locks shared by every process on the database; undefined: in-memory ones suffice (SQLite). */
  locks?: Locks;
  /** A limiter every process shares (PostgreSQL); undefined: each process counts its own. */
  sharedLimiter?: (scope: string, rule: RateLimit, clock: Clock, maxKeys?: number) => Limiter;
  close(): Promise<void>;
}

type StoreSettings = Pick<ServerConfig, "dataDir" | "databaseUrl" | "databaseSchema">;

/** PostgreSQL's connection settings, when DATABASE_URL names one. */
export function postgresOptions(config: StoreSettings): PostgresOptions | undefined {
  if (config.databaseUrl === undefined) return undefined;
  return {
    url: config.databaseUrl,
    ...(config.databaseSchema === undefined ? {} : { schema: config.databaseSchema }),
  };
}

/**
 * Where the self-hosted platform's state lives on PostgreSQL when DATABASE_URL names one: a schema
 * of its own beside the store's (`platform`, or `<DATABASE_SCHEMA>_platform`).
 */
export function platformPostgres(config: StoreSettings): PostgresOptions | undefined {
  const store = postgresOptions(config);
  if (store === undefined) return undefined;
  return { ...store, schema: store.schema === undefined ? "platform" : `${store.schema}_platform` };
}

/**
 * Opens (and migrates) PostgreSQL when DATABASE_URL is set, on the connections `budget` gives the
 * store, with its advisory locks (turns claimed by the clock `now`) when it gives them any (an API
 * process); else SQLite at
 * DATA_DIR/metadata.sqlite.
 */
export async function openMetadataStore(
  config: StoreSettings,
  budget: ConnectionBudget = connectionBudget(10, ALL_ROLES),
  now: () => number = Date.now,
): Promise<MetadataStore> {
  const postgres = postgresOptions(config);
  if (postgres === undefined) {
    const store = await openSqliteStore(join(config.dataDir, "metadata.sqlite"));
    return { store, close: () => store.close() };
  }
  const metadata = await openPostgresMetadata({ ...postgres, maxConnections: budget.store });
  // Only operations take project locks, and only an API process runs them.
  const locks =
    budget.locks > 0 ? new PostgresLocks({ ...postgres, maxConnections: budget.locks }, { now }) : undefined;
  return {
    store: metadata.store,
    ...(locks && { locks }),
    sharedLimiter: metadata.limiter,
    async close() {
      await locks?.close();
      await metadata.close();
    },
  };
}

/** Applies the metadata store's pending migrations (`deploy-server migrate`). */
export async function migrateMetadataStore(config: StoreSettings): Promise<MigrationReport> {
  const postgres = postgresOptions(config);
  if (postgres !== undefined) return migratePostgresStore(postgres);
  return migrateSqliteStore(join(config.dataDir, "metadata.sqlite"));
}
