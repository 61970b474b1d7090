export { migratePostgresStore, openPostgresStore, PostgresLocks } from "./postgres/index.js";
export { migrateSqliteStore, openSqliteStore } from "./sqlite/index.js";
