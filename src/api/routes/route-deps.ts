import type { Context, MiddlewareHandler } from "hono";
import type { Services } from "../../core/operations/services.js";

/** What every route module is built from. */
export interface RouteDeps {
  services: Services;
  /** The key of the client's address (IPv4, or IPv6 /64), for rate limits, the body budget and quotas. */
  clientAddress: (c: Context) => string;
  /** Lets the body be read within MAX_BODY_BYTES and the bytes-in-flight budget (`boundedBody`). */
  body: MiddlewareHandler;
}
