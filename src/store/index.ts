export {
  migratePostgresStore,
  openPostgresMetadata,
  openPostgresStore,
  PostgresLocks,
  type PostgresMetadata,
} from "./postgres/index.js";
export { migrateSqliteStore, openSqliteStore } from "./sqlite/index.js";
