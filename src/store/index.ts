export * from "./store.js";
export { openSqliteStore, SqliteStore } from "./sqlite/index.js";
