import { join } from "node:path";
import { migrate } from "../../../shared/database/migrator.js";
import type { PostgresOptions } from "../../../shared/database/postgres.js";
import { openSqlite } from "../../../shared/database/sqlite.js";
import { checkpointInWorker } from "../../../shared/database/wal-checkpointer.js";
import { PLATFORM_MIGRATION_TABLE, SQLITE_PLATFORM_MIGRATIONS } from "./migrations/platform-migrations.js";
import { openPostgresPlatformDatabase } from "./postgres-database.js";
import { type PlatformDatabase, sqlitePlatformDatabase } from "./platform-db.js";

export type { PlatformDatabase } from "./platform-db.js";

/**
 * The self-hosted platform's own database: blobs held, upload sessions, and the published manifest
 * the edge reads (sites, their hostnames, revisions and files); its tables are platform-tables.ts.
 * A media type belongs to a path of a session or revision, not to a blob: content is stored once
 * across projects, its type is not, and each project proves it has the bytes (`session_blobs`).
 */

/**
 * Opens the platform database: on PostgreSQL when `postgres` is given, else the SQLite file under
 * `dir` (created if needed, WAL mode with full sync); either way migrated to the latest. `listen`:
 * hear other processes' writes of the manifest (PostgreSQL; default true).
 */
export async function openPlatformDatabase(
  dir: string,
  postgres?: PostgresOptions,
  options: { listen?: boolean } = {},
): Promise<PlatformDatabase> {
  if (postgres) return openPostgresPlatformDatabase(postgres, options);
  const file = join(dir, "platform.sqlite");
  // Large sessions write tens of megabytes of log: their checkpoints go to a thread of their own.
  const database = sqlitePlatformDatabase(openSqlite(file), checkpointInWorker(file));
  try {
    await migrate(database.db, SQLITE_PLATFORM_MIGRATIONS, { tableName: PLATFORM_MIGRATION_TABLE });
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** Reads a setting, or stores `create()` as its value the first time (the first writer's wins). */
export async function settingOrCreate(
  database: PlatformDatabase,
  key: string,
  create: () => string,
): Promise<string> {
  const read = () =>
    database.db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst();
  const row = await read();
  if (row) return row.value;
  await database.db
    .insertInto("settings")
    .values({ key, value: create() })
    .onConflict((conflict) => conflict.column("key").doNothing())
    .execute();
  return (await read())!.value;
}
