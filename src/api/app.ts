import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Logger } from "pino";
import { PayloadTooLargeError } from "../core/errors.js";
import type { RateLimiter } from "../core/rate-limiter.js";
import type { Services } from "../core/operations/services.js";
import { errorResponse } from "./error-response.js";
import { cors } from "./middleware/cors.js";
import { requestLogger } from "../shared/request-logger.js";
import { openApiDocument } from "./openapi.js";
import { deployRoutes } from "./routes/deploys.js";
import { domainRoutes } from "./routes/domains.js";
import { healthRoutes } from "./routes/health.js";
import { projectRoutes } from "./routes/projects.js";

/** What the API is built from; the binary and the tests pass the same. */
export interface ApiDependencies {
  services: Services;
  logger: Logger;
  corsOrigin: string;
  maxBodyBytes: number;
  createLimits: { perAddress: RateLimiter; perFingerprint: RateLimiter };
  /** The client's address for rate limiting (the socket's, or a trusted proxy's header). */
  clientAddress: (c: import("hono").Context) => string;
  /** The API's public URL, for the OpenAPI document. */
  publicUrl: () => string;
}

/** Builds the Deploy API as a Hono app; listening is done elsewhere. */
export function createApiApp(deps: ApiDependencies): Hono {
  const app = new Hono();
  app.use(requestLogger(deps.logger));
  app.use(cors(deps.corsOrigin));
  app.use(
    "/projects/*",
    bodyLimit({
      maxSize: deps.maxBodyBytes,
      onError: () => {
        throw new PayloadTooLargeError(`request body exceeds ${deps.maxBodyBytes} bytes`);
      },
    }),
  );

  app.route("/", healthRoutes(deps.services));
  app.get("/openapi.json", (c) => c.json(openApiDocument(deps.publicUrl())));
  app.route(
    "/projects",
    projectRoutes({ services: deps.services, limits: deps.createLimits, clientAddress: deps.clientAddress }),
  );
  app.route("/projects", deployRoutes(deps.services));
  app.route("/projects", domainRoutes(deps.services));

  // Routing rules of the seed: unknown routes under /projects are 405, any other 404.
  app.notFound((c) => {
    const path = c.req.path;
    if (path === "/projects" || path.startsWith("/projects/")) {
      return c.json({ error: "method not allowed" }, 405);
    }
    return c.json({ error: "not found" }, 404);
  });
  app.onError((error, c) => errorResponse(error, c, deps.logger));
  return app;
}
