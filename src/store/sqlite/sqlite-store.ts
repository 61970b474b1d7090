import { Kysely, SqliteDialect } from "kysely";
import { migrate, type MigrationReport } from "../../shared/database/migrator.js";
import { openSqlite, withStatementCache } from "../../shared/database/sqlite.js";
import type { MetadataTables } from "../sql/schema.js";
import { type SqlDialect, SqlStore } from "../sql/sql-store.js";
import { SQLITE_MIGRATIONS } from "./migrations.js";

/** SQLite has one writer at a time: a write transaction holds every hostname already. */
const SQLITE: SqlDialect = {
  lockHostnames: async () => {},
  isUniqueViolation: (error) => (error as { code?: string } | null)?.code === "SQLITE_CONSTRAINT_UNIQUE",
};

/** Opens the SQLite metadata store at `file` (WAL, full sync, foreign keys) and migrates it. */
export async function openSqliteStore(file: string): Promise<SqlStore> {
  const db = new Kysely<MetadataTables>({
    dialect: new SqliteDialect({ database: withStatementCache(openSqlite(file)) }),
  });
  await migrate(db as Kysely<unknown>, SQLITE_MIGRATIONS);
  return new SqlStore(db, SQLITE);
}

/** Applies the pending migrations of the SQLite metadata store at `file`; says which ran. */
export async function migrateSqliteStore(file: string): Promise<MigrationReport> {
  const db = new Kysely<unknown>({
    dialect: new SqliteDialect({ database: withStatementCache(openSqlite(file)) }),
  });
  try {
    return await migrate(db, SQLITE_MIGRATIONS);
  } finally {
    await db.destroy();
  }
}
