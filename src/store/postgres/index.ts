export { PostgresLocks } from "./postgres-locks.js";
export { migratePostgresStore, openPostgresStore } from "./postgres-store.js";
