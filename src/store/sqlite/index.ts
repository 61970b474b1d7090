export { openSqliteStore } from "./sqlite-store.js";
