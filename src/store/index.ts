export { openSqliteStore } from "./sqlite/index.js";
