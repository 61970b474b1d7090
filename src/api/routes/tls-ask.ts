import { type Context, Hono } from "hono";
import { mayIssueCertificate } from "../../core/operations/index.js";
import type { Limiter } from "../../core/rate-limiter.js";
import { addressKey } from "../../shared/address-key.js";
import type { RouteDeps } from "./route-deps.js";

/** What bounds `GET /tls/ask` (contract §8). */
export interface TlsAskLimits {
  /** Questions per client address, for every client but the frontend. */
  perAddress: Limiter;
  /** Names answered "no" per window, over every client (one key): the frontend's bound too. */
  unknownNames: Limiter;
  /** The frontend's addresses (TLS_ASK_TRUSTED_ADDRESSES): Caddy asks from there for every visitor. */
  trustedAddresses: readonly string[];
}

/**
 * `GET /tls/ask?domain=<host>`: Caddy's on-demand TLS asks before it gets a certificate for a name
 * it has not seen. 200 only for a hostname a live project serves; 400 without a domain, 404 for
 * anything else. Caddy asks from one address for every visitor, so a per-address limit on it let
 * a flood of made-up names refuse the live sites' own questions (issue 31): the frontend's
 * questions are not limited per address, and names answered "no" are bounded over all clients
 * instead (429 with Retry-After past it). A live name is never refused by that bound.
 */
export function tlsAskRoutes(deps: Pick<RouteDeps, "services" | "clientAddress"> & TlsAskLimits): Hono {
  const app = new Hono();
  // clientAddress gives a client's key (IPv4, or an IPv6 /64), so the frontend's addresses are keyed alike.
  const trusted = new Set(deps.trustedAddresses.map(addressKey));
  app.get("/tls/ask", async (c) => {
    if (!fromFrontend(c, deps.clientAddress(c), trusted)) await deps.perAddress.hit(deps.clientAddress(c));
    const domain = c.req.query("domain");
    if (domain === undefined || domain === "") return c.text("domain query parameter missing\n", 400);
    if (await mayIssueCertificate(deps.services, domain)) return c.text("ok\n", 200);
    await deps.unknownNames.hit("unknown");
    return c.text("no live site on this hostname\n", 404);
  });
  return app;
}

/**
 * The frontend's own question: from a trusted address and not forwarded for someone else (Caddy's
 * `ask` carries no X-Forwarded-For; a request it proxies to the API does), so a visitor reaching
 * /tls/ask through the same proxy is still limited as themselves.
 */
function fromFrontend(c: Context, address: string, trusted: ReadonlySet<string>): boolean {
  return trusted.size > 0 && trusted.has(address) && c.req.header("x-forwarded-for") === undefined;
}
