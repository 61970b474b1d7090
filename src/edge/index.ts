export { createEdgeHandler, type EdgeHandler, type EdgeOptions } from "./edge-handler.js";
export { BlobCache, DEFAULT_CACHE_BYTES, DEFAULT_CACHE_ENTRY_BYTES, type CachedBlob } from "./blob-cache.js";
