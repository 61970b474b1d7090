import { type Kysely, type Migration, Migrator } from "kysely";

/** Named migrations, applied in the order of their names. */
export type Migrations = Record<string, Migration>;

/** What one run did. */
export interface MigrationReport {
  /** Migrations this run applied, in order; empty when the database was already up to date. */
  applied: string[];
}

/**
 * Brings `db` to the latest of `migrations` with Kysely's Migrator, recorded in `tableName` (one
 * per set of migrations sharing a database). The Migrator takes a lock around its work: on
 * PostgreSQL a transaction-scoped advisory lock, so processes starting at once apply each
 * migration once (the later ones wait, then find nothing to do) and a failed migration leaves the
 * schema as it was (DDL is transactional there); on SQLite the database's own write lock. Throws
 * the migration's error if one fails. On PostgreSQL pass the `schema` the tables live in.
 */
export async function migrate<Tables>(
  db: Kysely<Tables>,
  migrations: Migrations,
  options: { tableName?: string; schema?: string } = {},
): Promise<MigrationReport> {
  const { tableName = "kysely_migration", schema } = options;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: tableName,
    migrationLockTableName: `${tableName}_lock`,
    // Named, or the Migrator would take another schema's table of the same name for its own.
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: results.filter((r) => r.status === "Success").map((r) => r.migrationName) };
}
