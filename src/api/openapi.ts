import { API_ROUTES } from "./routes/api-routes.js";
import { openApiPath, type Operation } from "./routes/route.js";

/**
 * The OpenAPI 3.1 document of the API, built from the route declarations: each one's operation is
 * written from the schemas that validate its requests, and its error descriptions from the one
 * table of statuses (`status-by-code.ts`).
 */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of API_ROUTES) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: route.operation() };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Deploy API",
      version: "unversioned",
      description: "Internal, unstable API for the deploy command-line client. Errors are JSON.",
    },
    servers: [{ url: serverUrl }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths,
  };
}
