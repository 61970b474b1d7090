import { getRequestListener } from "@hono/node-server";
import type { Logger } from "pino";
import { createApiApp } from "../api/app.js";
import type { Clock } from "../core/clock.js";
import type { Services } from "../core/operations/services.js";
import { type Limiter, type RateLimit, RateLimiter, sharedBehindLocal } from "../core/rate-limiter.js";
import type { Metrics } from "../shared/observability/metrics.js";
import type { OutageLog } from "../shared/observability/outage-log.js";
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
  outages?: OutageLog;
  /** A limiter every API process shares (PostgreSQL), for the API's rate limits. */
  sharedLimiter?: (scope: string, rule: RateLimit, clock: Clock, maxKeys?: number) => Limiter;
}) {
  const { config, services, logger, metrics, clock } = deps;
  // Every limit holds across the API processes when they share PostgreSQL (issue 32: behind a
  // balancer, limits counted per process let a client through once per process); alone, in memory.
  const limiter = (scope: string, limit: number, windowSeconds: number) => {
    const rule = { limit, windowSeconds };
    const local = new RateLimiter(rule, clock, config.rateLimitKeys);
    const shared = deps.sharedLimiter?.(scope, rule, clock, config.rateLimitKeys);
    return shared ? sharedBehindLocal(local, shared) : local;
  };
  const createLimiter = (scope: string, limit: number) =>
    limiter(scope, limit, config.createLimitWindowSeconds);
  const apiApp = createApiApp({
    services,
    logger: logger.child({ role: "api" }),
    metrics,
    ...(deps.outages && { outages: deps.outages }),
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
      perAddress: limiter(
        "prepare-per-address",
        config.prepareLimitPerAddress,
        config.prepareLimitWindowSeconds,
      ),
      perProject: limiter(
        "prepare-per-project",
        config.prepareLimitPerProject,
        config.prepareLimitWindowSeconds,
      ),
    },
    domainLimits: {
      perAddress: limiter(
        "domain-per-address",
        config.domainLimitPerAddress,
        config.domainLimitWindowSeconds,
      ),
      perProject: limiter(
        "domain-per-project",
        config.domainLimitPerProject,
        config.domainLimitWindowSeconds,
      ),
    },
    tlsAsk: {
      perAddress: limiter(
        "tls-ask-per-address",
        config.tlsAskLimitPerAddress,
        config.tlsAskLimitWindowSeconds,
      ),
      // One key: every name answered "no" in a window, whoever asked.
      unknownNames: limiter("tls-ask-unknown", config.tlsAskUnknownLimit, config.tlsAskLimitWindowSeconds),
      trustedAddresses: config.tlsAskTrustedAddresses,
    },
    clientAddress: (c) => clientKey(c, config.trustProxy),
    publicUrl: () => (config.apiPublicUrl ?? deps.apiUrl).replace(/\/$/, ""),
  });
  return getRequestListener(apiApp.fetch);
}
