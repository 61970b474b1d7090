export { openSqliteStore, SqliteStore } from "./sqlite/index.js";
