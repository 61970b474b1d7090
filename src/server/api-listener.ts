import { getRequestListener } from "@hono/node-server";
import type { Logger } from "pino";
import { createApiApp } from "../api/app.js";
import type { Clock } from "../core/clock.js";
import type { Services } from "../core/operations/services.js";
import { type Limiter, type RateLimit, RateLimiter } from "../core/rate-limiter.js";
import type { Metrics } from "../shared/observability/metrics.js";
import { clientKey } from "./client-address.js";
import type { ServerConfig } from "./config.js";

/** The Deploy API's request listener. */
export function apiListener(deps: {
  config: ServerConfig;
  services: Services;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  apiUrl: string;
  /** A limiter every API process shares (PostgreSQL), for the create-project limits. */
  sharedLimiter?: (scope: string, rule: RateLimit, clock: Clock, maxKeys?: number) => Limiter;
}) {
  const { config, services, logger, metrics, clock } = deps;
  const limiter = (limit: number, windowSeconds: number) =>
    new RateLimiter({ limit, windowSeconds }, clock, config.rateLimitKeys);
  // Project creation is limited across every API process when they share PostgreSQL.
  const createLimiter = (scope: string, limit: number) => {
    const rule = { limit, windowSeconds: config.createLimitWindowSeconds };
    return (
      deps.sharedLimiter?.(scope, rule, clock, config.rateLimitKeys) ??
      new RateLimiter(rule, clock, config.rateLimitKeys)
    );
  };
  const apiApp = createApiApp({
    services,
    logger: logger.child({ role: "api" }),
    metrics,
    corsOrigin: config.corsOrigin,
    maxBodyBytes: config.maxBodyBytes,
    bodyBudget: {
      maxBytes: config.bodyBytesInFlight,
      maxBytesPerAddress: config.bodyBytesPerAddress,
    },
    bodyPace: config.bodyPace,
    createLimits: {
      perAddress: createLimiter("create-per-address", config.createLimitPerAddress),
      perFingerprint: createLimiter("create-per-fingerprint", config.createLimitPerFingerprint),
    },
    prepareLimits: {
      perAddress: limiter(config.prepareLimitPerAddress, config.prepareLimitWindowSeconds),
      perProject: limiter(config.prepareLimitPerProject, config.prepareLimitWindowSeconds),
    },
    domainLimits: {
      perAddress: limiter(config.domainLimitPerAddress, config.domainLimitWindowSeconds),
      perProject: limiter(config.domainLimitPerProject, config.domainLimitWindowSeconds),
    },
    tlsAsk: {
      perAddress: limiter(config.tlsAskLimitPerAddress, config.tlsAskLimitWindowSeconds),
      // One key: every name answered "no" in a window, whoever asked.
      unknownNames: limiter(config.tlsAskUnknownLimit, config.tlsAskLimitWindowSeconds),
      trustedAddresses: config.tlsAskTrustedAddresses,
    },
    clientAddress: (c) => clientKey(c, config.trustProxy),
    publicUrl: () => (config.apiPublicUrl ?? deps.apiUrl).replace(/\/$/, ""),
  });
  return getRequestListener(apiApp.fetch);
}
