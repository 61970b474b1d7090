import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { migrate, type MigrationReport } from "../../../shared/database/migrator.js";
import { openPostgres, type PostgresOptions } from "../../../shared/database/postgres.js";
import { ManifestListener } from "../sites/manifest-listener.js";
import type { PlatformDatabase } from "./platform-db.js";
import { PLATFORM_MIGRATION_TABLE, POSTGRES_PLATFORM_MIGRATIONS } from "./migrations/platform-migrations.js";
import type { PlatformTables } from "./platform-tables.js";

/** The schema the platform's tables live in, beside the metadata store's in the same database. */
export const PLATFORM_SCHEMA = "platform";

// deadlock_detected and serialization_failure: the transaction was rolled back whole, and may run
// again.
const RETRYABLE = new Set(["40P01", "40001"]);
const ATTEMPTS = 3;

/**
 * Opens the platform database on PostgreSQL (in `options.schema`, `platform` by default) and
 * brings its tables up to date, under the Migrator's lock: processes starting at once migrate once.
 */
export async function openPostgresPlatformDatabase(
  options: PostgresOptions,
  { listen = true }: { listen?: boolean } = {},
): Promise<PlatformDatabase> {
  const schema = options.schema ?? PLATFORM_SCHEMA;
  // Named per process: the manifest's notifications say whose connection wrote, and a process
  // skips its own (its writers told its readers at once).
  const writer = `static-deploy platform ${randomBytes(6).toString("hex")}`;
  const db = await openPostgres<PlatformTables>({ ...options, schema, applicationName: writer });
  try {
    await migrate(db, POSTGRES_PLATFORM_MIGRATIONS, { tableName: PLATFORM_MIGRATION_TABLE, schema });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return postgresPlatformDatabase(db, listen ? { url: options.url, schema, writer } : undefined);
}

/** Applies the platform's pending migrations on PostgreSQL and closes (`deploy-server migrate`). */
export async function migratePostgresPlatform(options: PostgresOptions): Promise<MigrationReport> {
  const schema = options.schema ?? PLATFORM_SCHEMA;
  const db = await openPostgres<PlatformTables>({ ...options, schema });
  try {
    return await migrate(db, POSTGRES_PLATFORM_MIGRATIONS, { tableName: PLATFORM_MIGRATION_TABLE, schema });
  } finally {
    await db.destroy();
  }
}

/**
 * Wraps a Kysely instance on PostgreSQL (tables in place) as the platform database; `listen` says
 * where the manifest's notifications are heard from (on a connection of their own). Without it
 * other processes' writes go unheard: for a process that serves no site, whose own writes are all
 * its readers need to know of.
 */
export function postgresPlatformDatabase(
  db: Kysely<PlatformTables>,
  listen: { url: string; schema: string; writer?: string } | undefined,
): PlatformDatabase {
  let open = true;
  const listeners: ((projectSlug?: string) => void)[] = [];
  let listener: ManifestListener | undefined;
  return {
    dialect: "postgres",
    db,
    sqlite: undefined,
    async transaction(work, options) {
      // A step that a later durable commit completes does not wait for its log to reach the disk
      // (the later commit's flush covers it: the log is written in order), as on SQLite.
      const run: typeof work =
        options?.durable === false
          ? async (trx) => {
              await sql`SET LOCAL synchronous_commit = off`.execute(trx);
              return work(trx);
            }
          : work;
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction().execute(run);
        } catch (error) {
          const code = (error as { code?: unknown } | null)?.code;
          if (attempt >= ATTEMPTS || typeof code !== "string" || !RETRYABLE.has(code)) throw error;
        }
      }
    },
    onManifestChange(onChange) {
      listeners.push(onChange);
      if (listener !== undefined || !open || listen === undefined) return;
      listener = new ManifestListener({
        ...listen,
        onChange: (slug) => listeners.forEach((call) => call(slug)),
      });
      listener.start();
    },
    manifestHeard: () => listener?.heard ?? Promise.resolve(),
    get open() {
      return open;
    },
    close: async () => {
      if (!open) return;
      open = false;
      await listener?.close();
      await db.destroy();
    },
  };
}
