import { Hono } from "hono";
import { assignDomain, checkDomain, resetDomain } from "../../core/operations/index.js";
import { credentials } from "../request/credentials.js";
import { parseBody } from "../request/parse-body.js";
import { projectHeaders, type RouteLimits } from "../request/project-headers.js";
import { assignDomainSchema, identitySchema } from "../request/schemas.js";
import type { RouteDeps } from "./route-deps.js";

/**
 * `POST` and `DELETE /projects/:projectSlug/domains` and `POST …/domains/check`. Each request
 * counts against the domain limits, per client address and per project, before its body is read:
 * a claim costs DNS questions about a name the client chose and may hold a name for days.
 */
export function domainRoutes(deps: RouteDeps & { domainLimits: RouteLimits }): Hono {
  const { services } = deps;
  const app = new Hono();
  const headers = projectHeaders({ ...deps, limits: deps.domainLimits });

  app.post("/:projectSlug/domains", headers, deps.body, async (c) => {
    const { body } = await parseBody(c, assignDomainSchema);
    return c.json(await assignDomain(services, { ...credentials(c, body), domain: body.domain }), 200);
  });

  app.post("/:projectSlug/domains/check", headers, deps.body, async (c) => {
    const { body } = await parseBody(c, identitySchema);
    return c.json(await checkDomain(services, credentials(c, body)), 200);
  });

  app.delete("/:projectSlug/domains", headers, deps.body, async (c) => {
    const { body } = await parseBody(c, identitySchema);
    return c.json(await resetDomain(services, credentials(c, body)), 200);
  });

  return app;
}
