export * from "./authorize.js";
export * from "./complete-deploy.js";
export * from "./create-project.js";
export * from "./delete-project.js";
export * from "./domains.js";
export * from "./prepare-deploy.js";
export * from "./revisions.js";
export * from "./sweep.js";
