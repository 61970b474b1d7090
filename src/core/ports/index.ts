export * from "./platform.js";
export * from "./store.js";
