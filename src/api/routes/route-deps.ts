import type { Context, MiddlewareHandler } from "hono";
import type { Limiter } from "../../core/rate-limiter.js";
import type { Services } from "../../core/operations/services.js";
import type { RouteLimits } from "../request/project-headers.js";

/** What bounds `GET /tls/ask` (contract §8). */
export interface TlsAskLimits {
  /** Questions per client address, for every client but the frontend. */
  perAddress: Limiter;
  /** Names answered "no" per window, over every client (one key): the frontend's bound too. */
  unknownNames: Limiter;
  /** The frontend's addresses (TLS_ASK_TRUSTED_ADDRESSES): Caddy asks from there for every visitor. */
  trustedAddresses: readonly string[];
}

/** What the API's routes are built from; a route declares the part it reads. */
export interface RouteDeps {
  services: Services;
  /** The key of the client's address (IPv4, or IPv6 /64), for rate limits, the body budget and quotas. */
  clientAddress: (c: Context) => string;
  /** Lets the body be read within MAX_BODY_BYTES and the bytes-in-flight budget (`boundedBody`). */
  body: MiddlewareHandler;
  /** MAX_BODY_BYTES, as `GET /limits` tells it. */
  maxBodyBytes: number;
  /** `POST /projects`: per client address before the body is read, per fingerprint after. */
  createLimits: { perAddress: Limiter; perFingerprint: Limiter };
  prepareLimits: RouteLimits;
  /** The domain routes (assign, check, reset): each request counts, per client address and per project. */
  domainLimits: RouteLimits;
  tlsAsk: TlsAskLimits;
}
