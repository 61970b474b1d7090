export { migrateSqliteStore, openSqliteStore } from "./sqlite-store.js";
