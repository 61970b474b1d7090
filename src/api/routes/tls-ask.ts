import { Hono } from "hono";
import { mayIssueCertificate } from "../../core/operations/index.js";
import type { RateLimiter } from "../../core/rate-limiter.js";
import type { RouteDeps } from "./route-deps.js";

/**
 * `GET /tls/ask?domain=<host>`: Caddy's on-demand TLS asks before it gets a certificate for a name
 * it has not seen. 200 only for a hostname a live project serves; 400 without a domain, 404 for
 * anything else; 429 past the per-address limit (the usual answer, with Retry-After).
 */
export function tlsAskRoutes(
  deps: Pick<RouteDeps, "services" | "clientAddress"> & { askLimit: RateLimiter },
): Hono {
  const app = new Hono();
  app.get("/tls/ask", async (c) => {
    deps.askLimit.hit(deps.clientAddress(c));
    const domain = c.req.query("domain");
    if (domain === undefined || domain === "") return c.text("domain query parameter missing\n", 400);
    const allowed = await mayIssueCertificate(deps.services, domain);
    return allowed ? c.text("ok\n", 200) : c.text("no live site on this hostname\n", 404);
  });
  return app;
}
