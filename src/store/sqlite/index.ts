export { openSqliteStore, SqliteStore } from "./sqlite-store.js";
