export * from "./dns.js";
export * from "./platform.js";
export * from "./store.js";
export * from "./locks.js";
