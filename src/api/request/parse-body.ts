import type { Context } from "hono";
import type { z } from "zod";
import { ClientAbortedError } from "../../shared/client-abort.js";
import {
  DeployError,
  InvalidFingerprintError,
  InvalidJsonError,
  InvalidManifestError,
  InvalidProjectHashError,
  InvalidRequestError,
  UnsupportedMediaTypeError,
} from "../../core/errors.js";

/**
 * Reads a JSON object body and validates it with `schema`. The contract's codes decide which error
 * a bad field gives: projectHash and anonFingerprint have their own, manifest shape problems are
 * INVALID_MANIFEST, anything else INVALID_REQUEST naming the field.
 */
export async function parseBody<S extends z.ZodType>(
  c: Context,
  schema: S,
): Promise<{ body: z.infer<S>; raw: Record<string, unknown> }> {
  return parseJsonBody(await readBodyText(c), schema);
}

/** `parseBody` of a body's text already read. */
export function parseJsonBody<S extends z.ZodType>(
  text: string,
  schema: S,
): { body: z.infer<S>; raw: Record<string, unknown> } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidJsonError("request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new InvalidJsonError("request body must be a JSON object");
  }
  return judgeBody(body as Record<string, unknown>, schema);
}

/** The body's text, once the request says it is JSON (415 otherwise). */
export async function readBodyText(c: Context): Promise<string> {
  return utf8.decode(await readBodyBytes(c));
}

const utf8 = new TextDecoder();

/** The body's bytes, once the request says it is JSON (415 otherwise). */
export async function readBodyBytes(c: Context): Promise<ArrayBuffer> {
  requireJsonContentType(c);
  try {
    return await c.req.arrayBuffer();
  } catch (error) {
    // Refused while it arrived (413, 429, 503: see body-budget.ts), or its client went away.
    if (error instanceof DeployError) throw error;
    throw new ClientAbortedError({ cause: error });
  }
}

/** Validates a parsed JSON object with `schema`, with the contract's code for a bad field. */
export function judgeBody<S extends z.ZodType>(
  body: Record<string, unknown>,
  schema: S,
): { body: z.infer<S>; raw: Record<string, unknown> } {
  const result = schema.safeParse(body);
  // `raw` keeps keys such as "__proto__" that a parsed copy could drop, for checks that must see them.
  if (result.success) return { body: result.data, raw: body };
  throw fieldError(result.error.issues, body);
}

/** 415 unless the request says its body is JSON. */
export function requireJsonContentType(c: Context): void {
  const contentType = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new UnsupportedMediaTypeError("Content-Type must be application/json");
  }
}

function fieldError(issues: z.core.$ZodIssue[], body: Record<string, unknown>): Error {
  // Report the contract's specific codes first, whatever order zod listed the issues in. They are
  // for malformed values; a missing field is INVALID_REQUEST naming it, like any other.
  const byField = (field: string) => issues.find((issue) => issue.path[0] === field);
  const malformed = (field: string) => byField(field) && Object.hasOwn(body, field);
  if (malformed("projectHash")) return new InvalidProjectHashError();
  if (malformed("anonFingerprint")) return new InvalidFingerprintError();
  const manifest = byField("manifest");
  if (manifest) return new InvalidManifestError(`${describePath(manifest.path)}: ${manifest.message}`);
  const first = issues[0]!;
  return new InvalidRequestError(`${describePath(first.path)}: ${first.message}`);
}

function describePath(path: PropertyKey[]): string {
  if (path.length === 0) return "body";
  return path.map((key, i) => (i === 0 ? String(key) : `[${JSON.stringify(String(key))}]`)).join("");
}
