export { PostgresLocks } from "./postgres-locks.js";
export {
  migratePostgresStore,
  openPostgresMetadata,
  openPostgresStore,
  type PostgresMetadata,
} from "./postgres-store.js";
