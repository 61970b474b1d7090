import { z } from "zod";
import { codesOfStatus } from "../status-by-code.js";
import { responses } from "../request/schemas.js";
import type { Operation } from "./route.js";

/** A JSON body of `schema`, as an OpenAPI request body or response content. */
export function json(schema: z.ZodType): { content: Record<string, { schema: unknown }> } {
  return {
    content: {
      "application/json": { schema: z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) },
    },
  };
}

/** The error responses of `statuses`, each naming the codes it carries (from STATUS_BY_CODE). */
export function errorResponses(statuses: readonly number[]): Record<string, unknown> {
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: `error: ${codesOfStatus(status) || "see contract §5"}`, ...json(responses.error) },
    ]),
  );
}

/**
 * What any route that reads a JSON body can answer: 400, 415, 408 (a body slower than the minimum
 * pace), 429 and 503 (too many request bodies in flight from this address, or on the API), 500.
 */
export const BODY_ROUTE_ERRORS = [400, 408, 415, 429, 500, 503] as const;

/**
 * The operation of a project route: the bearer token, the slug in the path, a required JSON body,
 * a 200 answer, the errors every project route can answer and `errors`, its own.
 */
export function projectOperation(
  summary: string,
  body: z.ZodType,
  response: z.ZodType,
  errors: number[],
): Operation {
  return {
    summary,
    security: [{ bearer: [] }],
    parameters: [{ name: "projectSlug", in: "path", required: true, schema: { type: "string" } }],
    requestBody: { required: true, ...json(body) },
    responses: {
      "200": { description: "success", ...json(response) },
      ...errorResponses([...BODY_ROUTE_ERRORS, 401, 403, 404, 410, ...errors]),
    },
  };
}
