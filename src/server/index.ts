export { ConfigError, loadConfig, type ServerConfig } from "./config.js";
export { type RunningServer, startServer } from "./start.js";
