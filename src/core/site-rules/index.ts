export * from "./cloudflare-differences.js";
export * from "./compiled-rules.js";
export * from "./encode-path.js";
export * from "./parse-headers.js";
export * from "./parse-redirects.js";
export * from "./parse-site-rules.js";
export * from "./rule-types.js";
export { decodeRulesFile } from "./text-lines.js";
