import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { RawResponse } from "../support/raw-http.js";

/** The checkout's absolute path: no answer may name it (nor a DATA_DIR, added by the caller). */
const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** Contract §5: every error code of the API and the status it goes with. */
export const API_ERROR_STATUS: Record<string, number> = {
  INVALID_JSON: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_REQUEST: 400,
  INVALID_PROJECT_HASH: 400,
  INVALID_FINGERPRINT: 400,
  INVALID_MANIFEST: 400,
  INVALID_DOMAIN: 400,
  UNAUTHORIZED: 401,
  OWNERSHIP_MISMATCH: 403,
  PROJECT_NOT_FOUND: 404,
  DEPLOY_NOT_FOUND: 404,
  DOMAIN_TAKEN: 409,
  DOMAIN_NOT_ASSIGNED: 404,
  DEPLOY_ALREADY_COMPLETED: 409,
  PROJECT_EXPIRED: 410,
  DEPLOY_EXPIRED: 410,
  INVALID_COMPLETION: 422,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  QUOTA_EXCEEDED: 413,
  RATE_LIMITED: 429,
  UPLOAD_PLATFORM_ERROR: 502,
  SERVER_BUSY: 503,
  SERVER_STARTING: 503,
  INSUFFICIENT_STORAGE: 507,
  INTERNAL: 500,
};

/** What an error answer may reveal: nothing of the process's insides. */
const INTERNALS = [
  /\n\s+at /, // a stack frame
  /\bat [\w.<>]+ \(/,
  /node_modules/,
  /file:\/\//,
  /\.[cm]?[jt]s:\d+/,
  /SQLITE_/,
  /\b(?:TypeError|RangeError|ReferenceError|SyntaxError)\b/,
];

/** Asserts that a body's text carries no stack trace, internal path or driver error. */
export function expectNoInternals(text: string, context = "", paths: string[] = []): void {
  for (const path of [ROOT, ...paths]) {
    expect(text.includes(path), `${context}: body names the internal path ${path}`).toBe(false);
  }
  for (const pattern of INTERNALS) {
    expect(pattern.test(text), `${context}: body reveals internals (${pattern}): ${text.slice(0, 300)}`).toBe(
      false,
    );
  }
}

/** Fields an error carries besides code and message. */
const ERROR_FIELDS: Record<string, string[]> = {
  DOMAIN_TAKEN: ["txtRecord"],
  QUOTA_EXCEEDED: ["limitBytes", "quota", "remainingBytes"],
};

/**
 * Asserts an API answer is one of the contract's JSON errors with a 4xx status: the string form
 * for routing (404, 405), else `{ error: { code, message } }` whose code goes with the status.
 * Returns the code (or the routing string).
 */
export function expectApiClientError(response: RawResponse, context: string, paths: string[] = []): string {
  const text = response.body.toString("utf8");
  expect(response.status, `${context}: ${response.status} ${text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${context}: ${response.status} ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(response.headers["content-type"], context).toMatch(/^application\/json/);
  let body: any;
  expect(() => (body = JSON.parse(text)), `${context}: not JSON: ${text.slice(0, 300)}`).not.toThrow();
  expect(Object.keys(body), context).toEqual(["error"]);
  expectNoInternals(text, context, paths);
  if (typeof body.error === "string") {
    const routing: Record<string, number> = { "not found": 404, "method not allowed": 405 };
    expect(routing[body.error], `${context}: unknown string error ${body.error}`).toBe(response.status);
    return body.error;
  }
  // Some refusals say more in fields of their own (contract §5); nothing else may ride along.
  const allowed = new Set(["code", "message", ...(ERROR_FIELDS[body.error.code as string] ?? [])]);
  expect(Object.keys(body.error), context).toEqual(expect.arrayContaining(["code", "message"]));
  expect(
    Object.keys(body.error).filter((key) => !allowed.has(key)),
    context,
  ).toEqual([]);
  expect(typeof body.error.message, context).toBe("string");
  expect(API_ERROR_STATUS[body.error.code], `${context}: code ${body.error.code}`).toBe(response.status);
  if (response.status === 429) expect(response.headers["retry-after"], context).toMatch(/^\d+$/);
  return body.error.code;
}

/**
 * Asserts an upload-service answer is Cloudflare's error envelope with a 4xx status:
 * `{ success: false, errors: [{ code, message }], messages, result: null }`. Returns the code.
 */
export function expectUploadClientError(
  response: RawResponse,
  context: string,
  paths: string[] = [],
): number {
  const text = response.body.toString("utf8");
  expect(response.status, `${context}: ${response.status} ${text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${context}: ${response.status} ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(response.headers["content-type"], context).toMatch(/^application\/json/);
  let body: any;
  expect(() => (body = JSON.parse(text)), `${context}: not JSON: ${text.slice(0, 300)}`).not.toThrow();
  expect(body.success, context).toBe(false);
  expect(body.errors, context).toHaveLength(1);
  expect(Object.keys(body.errors[0]).sort(), context).toEqual(["code", "message"]);
  expect(typeof body.errors[0].code, context).toBe("number");
  expectNoInternals(text, context, paths);
  return body.errors[0].code;
}
