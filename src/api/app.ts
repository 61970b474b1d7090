import { Hono } from "hono";
import type { Logger } from "pino";
import type { Limiter } from "../core/rate-limiter.js";
import type { Services } from "../core/operations/services.js";
import { errorResponse } from "./error-response.js";
import { cors } from "./middleware/cors.js";
import { requestLogger } from "../shared/observability/request-logger.js";
import type { Metrics } from "../shared/observability/metrics.js";
import type { OutageLog } from "../shared/observability/outage-log.js";
import { apiMetrics } from "./middleware/api-metrics.js";
import { openApiDocument } from "./openapi.js";
import { API_ROUTES } from "./routes/api-routes.js";
import { mountRoutes } from "./routes/route.js";
import type { RouteDeps, TlsAskLimits } from "./routes/route-deps.js";
import { BodyBudget, type BodyBudgetLimits, boundedBody } from "./request/body-budget.js";
import type { RouteLimits } from "./request/project-headers.js";
import type { BodyPace } from "../shared/body-pace.js";

/** What the API is built from; the binary and the tests pass the same. */
export interface ApiDependencies {
  services: Services;
  logger: Logger;
  /** Counts requests by route, and deploys completed. */
  metrics?: Metrics;
  /** Where requests an outage failed are counted (one line per interval); without it, one error each. */
  outages?: OutageLog;
  corsOrigin: string;
  maxBodyBytes: number;
  /** Request body bytes the API may hold in flight, in all and per client address. */
  bodyBudget: BodyBudgetLimits;
  /** The slowest a request body may arrive before it is cut off with 408; without it, no minimum. */
  bodyPace?: BodyPace;
  /** Shared by every API process on one PostgreSQL database; in memory otherwise. */
  createLimits: { perAddress: Limiter; perFingerprint: Limiter };
  prepareLimits: RouteLimits;
  /** The domain routes (assign, check, reset): each request counts, per client address and per project. */
  domainLimits: RouteLimits;
  /** Caddy's on-demand TLS questions (`GET /tls/ask`): see `TlsAskLimits`. */
  tlsAsk: TlsAskLimits;
  /**
   * The key per-address limits, budget shares and quotas count a client by (the binary passes its
   * IPv4 address or IPv6 /64, from the socket or a trusted proxy's header).
   */
  clientAddress: (c: import("hono").Context) => string;
  /** The API's public URL, for the OpenAPI document. */
  publicUrl: () => string;
}

/** Builds the Deploy API as a Hono app; listening is done elsewhere. */
export function createApiApp(deps: ApiDependencies): Hono {
  const app = new Hono();
  app.use(requestLogger(deps.logger));
  if (deps.metrics) app.use(apiMetrics(deps.metrics));
  app.use(cors(deps.corsOrigin));
  // Every route with a body reads it through this, after what its headers decide (contract §5).
  const routeDeps: RouteDeps = {
    services: deps.services,
    clientAddress: deps.clientAddress,
    body: boundedBody({
      maxBodyBytes: deps.maxBodyBytes,
      budget: new BodyBudget(deps.bodyBudget, (bytes) => deps.metrics?.bodyBytesInFlight.set(bytes)),
      clientAddress: deps.clientAddress,
      ...(deps.bodyPace && { pace: deps.bodyPace }),
    }),
    maxBodyBytes: deps.maxBodyBytes,
    createLimits: deps.createLimits,
    prepareLimits: deps.prepareLimits,
    domainLimits: deps.domainLimits,
    tlsAsk: deps.tlsAsk,
  };

  mountRoutes(app, API_ROUTES, routeDeps);
  app.get("/openapi.json", (c) => c.json(openApiDocument(deps.publicUrl())));

  // Routing rules of the seed: unknown routes under /projects are 405, any other 404.
  app.notFound((c) => {
    const path = c.req.path;
    if (path === "/projects" || path.startsWith("/projects/")) {
      return c.json({ error: "method not allowed" }, 405);
    }
    return c.json({ error: "not found" }, 404);
  });
  app.onError((error, c) => errorResponse(error, c, deps.logger, deps.outages));
  return app;
}
