import { z } from "zod";
import * as schemas from "./request/schemas.js";

type Schema = z.ZodType;

const json = (schema: Schema) => ({
  content: {
    "application/json": { schema: z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) },
  },
});

/** The error codes each status carries (contract §5), for the responses' descriptions. */
const CODES_BY_STATUS: Record<number, string> = {
  400: "INVALID_JSON, INVALID_REQUEST, INVALID_PROJECT_HASH, INVALID_FINGERPRINT, INVALID_MANIFEST, INVALID_DOMAIN",
  401: "UNAUTHORIZED",
  403: "OWNERSHIP_MISMATCH",
  404: "PROJECT_NOT_FOUND, DEPLOY_NOT_FOUND, REVISION_NOT_FOUND",
  408: "REQUEST_TIMEOUT (the body arrived slower than BODY_MIN_BYTES_PER_SECOND and was cut off; retry)",
  409: "DOMAIN_TAKEN, DEPLOY_ALREADY_COMPLETED, MANIFEST_CHANGED, ALIAS_LIMIT",
  410: "PROJECT_EXPIRED, DEPLOY_EXPIRED",
  413: "PAYLOAD_TOO_LARGE; on prepare and deploy also QUOTA_EXCEEDED (with quota, limitBytes, remainingBytes)",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "INVALID_COMPLETION, or INVALID_SITE_CONFIG (a `_redirects` or `_headers` line that does not parse)",
  429: "RATE_LIMITED (with Retry-After)",
  502: "UPLOAD_PLATFORM_ERROR",
  503: "SERVER_BUSY, or SERVER_STARTING while the process starts (with Retry-After)",
  507: "INSUFFICIENT_STORAGE (the server is short of storage; do not retry at once)",
};

const errorResponses = (statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: `error: ${CODES_BY_STATUS[status] ?? "see contract §5"}`,
        ...json(schemas.responses.error),
      },
    ]),
  );

const projectRoute = (summary: string, body: Schema, response: Schema, errors: number[]) => ({
  summary,
  security: [{ bearer: [] }],
  parameters: [{ name: "projectSlug", in: "path", required: true, schema: { type: "string" } }],
  requestBody: { required: true, ...json(body) },
  responses: {
    "200": { description: "success", ...json(response) },
    // 429 and 503: too many request bodies in flight from this address, or on the API; 408: a body
    // slower than the minimum pace.
    ...errorResponses([400, 401, 403, 404, 408, 410, 415, 429, 503, ...errors]),
  },
});

/** The OpenAPI 3.1 document of the API, built from the schemas that validate its requests. */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "Deploy API",
      version: "unversioned",
      description: "Internal, unstable API for the deploy command-line client. Errors are JSON.",
    },
    servers: [{ url: serverUrl }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths: {
      "/health": {
        get: {
          summary: "health check",
          responses: { "200": { description: "ok", ...json(schemas.responses.health) } },
        },
      },
      "/healthz": {
        get: {
          summary: "health check of the service and its dependencies",
          responses: {
            "200": { description: "ok", ...json(schemas.responses.healthz) },
            "503": { description: "a dependency is down", ...json(schemas.responses.healthz) },
          },
        },
      },
      "/limits": {
        get: {
          summary:
            "the server's limits, so a client refuses what the server would before it creates anything",
          responses: { "200": { description: "ok", ...json(schemas.responses.limits) } },
        },
      },
      "/projects": {
        post: {
          summary: "create an anonymous project; the apiToken is returned once",
          requestBody: { required: true, ...json(schemas.createProjectSchema) },
          responses: {
            "201": { description: "created", ...json(schemas.responses.createProject) },
            ...errorResponses([400, 408, 413, 415, 429, 503]),
          },
        },
      },
      "/projects/{projectSlug}": {
        delete: projectRoute(
          "delete the project",
          schemas.identitySchema,
          schemas.responses.deleteProject,
          [502],
        ),
      },
      "/projects/{projectSlug}/prepare": {
        post: projectRoute(
          "prepare a deploy",
          schemas.prepareSchema,
          // The unchanged answer only to a client that sent skipUnchanged.
          z.union([schemas.responses.prepare, schemas.responses.prepareUnchanged]),
          [409, 413, 502, 507],
        ),
      },
      "/projects/{projectSlug}/deploy": {
        post: projectRoute(
          "complete a deploy",
          schemas.deploySchema,
          schemas.responses.deploy,
          [409, 422, 502],
        ),
      },
      "/projects/{projectSlug}/state": {
        post: projectRoute(
          "the project and its kept revisions, newest first (answers for an expired project too)",
          schemas.identitySchema,
          schemas.responses.state,
          [],
        ),
      },
      "/projects/{projectSlug}/promote": {
        post: projectRoute(
          "make a kept revision the production revision (a rollback promotes an older one); idempotent",
          schemas.promoteSchema,
          schemas.responses.promote,
          [502],
        ),
      },
      "/projects/{projectSlug}/domains": {
        post: projectRoute(
          "assign a domain",
          schemas.assignDomainSchema,
          schemas.responses.assignDomain,
          [409, 502],
        ),
        delete: projectRoute(
          "reset to the generated domain",
          schemas.identitySchema,
          schemas.responses.resetDomain,
          [502],
        ),
      },
      "/projects/{projectSlug}/domains/check": {
        post: projectRoute(
          "ask DNS about the custom domain now (404 DOMAIN_NOT_ASSIGNED without one)",
          schemas.identitySchema,
          schemas.responses.assignDomain,
          [502],
        ),
      },
      "/tls/ask": {
        get: {
          summary: "Caddy's on-demand TLS question: 200 when a live project serves ?domain=, else 404",
          parameters: [{ name: "domain", in: "query", required: true, schema: { type: "string" } }],
          responses: {
            "200": { description: "a certificate may be issued" },
            "400": { description: "no hostname given, or not a hostname" },
            "404": { description: "no live project serves this hostname" },
            "429": { description: "rate limited" },
          },
        },
      },
    },
  };
}
