// The self-hosted platform's one entry point: the rest of src/ imports only this file (lint).
export { openSelfHostedState, type SelfHostedState, type SelfHostedStateOptions } from "./open-selfhosted.js";
export { SelfHostedPlatform } from "./selfhost-platform.js";
// What the server hands the edge and the upload service: their storage, on this platform's state.
export { SelfHostedEdgeStorage } from "./adapters/selfhost-edge-storage.js";
export { SelfHostedUploadStorage } from "./adapters/selfhost-upload-storage.js";
export { migratePostgresPlatform } from "./state/postgres-database.js";
export { type S3Settings, parseObjectStoreUrl } from "./content/s3/s3-settings.js";
