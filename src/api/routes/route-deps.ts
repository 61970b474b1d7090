import type { Context, MiddlewareHandler } from "hono";
import type { Services } from "../../core/operations/services.js";

/** What every route module is built from. */
export interface RouteDeps {
  services: Services;
  /** The client's address, for rate limits and the body budget. */
  clientAddress: (c: Context) => string;
  /** Lets the body be read within MAX_BODY_BYTES and the bytes-in-flight budget (`boundedBody`). */
  body: MiddlewareHandler;
}
