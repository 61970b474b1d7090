import type { Context, MiddlewareHandler } from "hono";
import { authenticate } from "../../core/operations/authorize.js";
import type { Services } from "../../core/operations/services.js";
import type { ProjectRecord } from "../../core/ports/store.js";
import type { Limiter } from "../../core/rate-limiter.js";
import { bearerToken } from "../../shared/bearer.js";
import { projectSlugParam } from "./credentials.js";
import { requireJsonContentType } from "./parse-body.js";

declare module "hono" {
  interface ContextVariableMap {
    /** The project the request's bearer token belongs to, as `projectHeaders` found it. */
    authenticatedProject: ProjectRecord;
  }
}

/** Per-window limits a route counts before its body is read. */
export interface RouteLimits {
  /** Counted for every request of the route from one client address, first of all. */
  perAddress: Limiter;
  /** Counted per project of the bearer token, once the token is known. */
  perProject: Limiter;
}

/**
 * What a project route decides from its request line and headers alone, before any byte of its
 * body is read (contract §5): the route's rate limit per address (429), the slug in the path (400),
 * `Content-Type` (415), then a known bearer token (401) and the route's limit per project (429). A
 * request without a valid token is answered from its headers: no body could make it succeed. Its
 * body is never read into memory; what of it is already on its way is discarded for at most
 * 500 ms (64 MiB) so that the client reads the answer (@hono/node-server's clean-up of an unread
 * body), then the connection is closed lingering, up to 2 s (1 MiB) more (the listener's
 * `lingerOnClose`). Everything the body holds is judged after, in the contract's order. The
 * project found is kept on the context (`authenticatedProject`): the handler does not read it again.
 */
export function projectHeaders(deps: {
  services: Services;
  clientAddress: (c: Context) => string;
  limits?: RouteLimits;
}): MiddlewareHandler {
  return async (c, next) => {
    await deps.limits?.perAddress.hit(deps.clientAddress(c));
    projectSlugParam(c);
    requireJsonContentType(c);
    const owner = await authenticate(deps.services, bearerToken(c.req.header("authorization")));
    await deps.limits?.perProject.hit(owner.slug);
    c.set("authenticatedProject", owner);
    await next();
  };
}
