import type { Context } from "hono";
import { mayIssueCertificate } from "../../core/operations/index.js";
import { addressKey } from "../../shared/address-key.js";
import { defineRoute } from "./route.js";

/**
 * `GET /tls/ask?domain=<host>`: Caddy's on-demand TLS asks before it gets a certificate for a name
 * it has not seen. 200 only for a hostname a live project serves; 400 without a domain, 404 for
 * anything else. Caddy asks from one address for every visitor, so a per-address limit on it let
 * a flood of made-up names refuse the live sites' own questions (issue 31): the frontend's
 * questions are not limited per address, and names answered "no" are bounded over all clients
 * instead (429 with Retry-After past it). A live name is never refused by that bound.
 */
export const tlsAskRoute = defineRoute({
  method: "get",
  path: "/tls/ask",
  operation: () => ({
    summary: "Caddy's on-demand TLS question: 200 when a live project serves ?domain=, else 404",
    parameters: [{ name: "domain", in: "query", required: true, schema: { type: "string" } }],
    responses: {
      "200": { description: "a certificate may be issued" },
      "400": { description: "no hostname given, or not a hostname" },
      "404": { description: "no live project serves this hostname" },
      "429": { description: "rate limited" },
    },
  }),
  handlers: ({ services, clientAddress, tlsAsk }) => {
    // clientAddress gives a client's key (IPv4, or an IPv6 /64), so the frontend's addresses are keyed alike.
    const trusted = new Set(tlsAsk.trustedAddresses.map(addressKey));
    return [
      async (c) => {
        if (!fromFrontend(c, clientAddress(c), trusted)) await tlsAsk.perAddress.hit(clientAddress(c));
        const domain = c.req.query("domain");
        if (domain === undefined || domain === "") return c.text("domain query parameter missing\n", 400);
        if (await mayIssueCertificate(services, domain)) return c.text("ok\n", 200);
        await tlsAsk.unknownNames.hit("unknown");
        return c.text("no live site on this hostname\n", 404);
      },
    ];
  },
});

/**
 * The frontend's own question: from a trusted address and not forwarded for someone else (Caddy's
 * `ask` carries no X-Forwarded-For; a request it proxies to the API does), so a visitor reaching
 * /tls/ask through the same proxy is still limited as themselves.
 */
function fromFrontend(c: Context, address: string, trusted: ReadonlySet<string>): boolean {
  return trusted.size > 0 && trusted.has(address) && c.req.header("x-forwarded-for") === undefined;
}
