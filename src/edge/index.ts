export { createEdgeHandler, type EdgeHandler, type EdgeOptions } from "./edge-handler.js";
