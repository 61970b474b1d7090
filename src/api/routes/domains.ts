import { Hono } from "hono";
import { assignDomain, checkDomain, resetDomain } from "../../core/operations/index.js";
import { credentials } from "../request/credentials.js";
import { parseBody } from "../request/parse-body.js";
import { projectHeaders } from "../request/project-headers.js";
import { assignDomainSchema, identitySchema } from "../request/schemas.js";
import type { RouteDeps } from "./route-deps.js";

/** `POST` and `DELETE /projects/:projectSlug/domains`. */
export function domainRoutes(deps: RouteDeps): Hono {
  const { services } = deps;
  const app = new Hono();

  app.post("/:projectSlug/domains", projectHeaders(deps), deps.body, async (c) => {
    const { body } = await parseBody(c, assignDomainSchema);
    return c.json(await assignDomain(services, { ...credentials(c, body), domain: body.domain }), 200);
  });

  app.post("/:projectSlug/domains/check", projectHeaders(deps), deps.body, async (c) => {
    const { body } = await parseBody(c, identitySchema);
    return c.json(await checkDomain(services, credentials(c, body)), 200);
  });

  app.delete("/:projectSlug/domains", projectHeaders(deps), deps.body, async (c) => {
    const { body } = await parseBody(c, identitySchema);
    return c.json(await resetDomain(services, credentials(c, body)), 200);
  });

  return app;
}
