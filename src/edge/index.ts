export { createEdgeHandler, type EdgeHandler, type EdgeOptions } from "./edge-handler.js";
export { answerClientError } from "./http-exactness.js";
export { largestCachedBlob } from "./blob-cache.js";
export type { EdgeBlob, EdgeStorage, SiteTarget, StoredFile } from "./edge-storage.js";
