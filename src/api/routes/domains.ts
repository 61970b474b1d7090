import { assignDomain, checkDomain, resetDomain } from "../../core/operations/index.js";
import { credentials } from "../request/credentials.js";
import { parseBody } from "../request/parse-body.js";
import { projectHeaders } from "../request/project-headers.js";
import { assignDomainSchema, identitySchema, responses } from "../request/schemas.js";
import { projectOperation } from "./operation.js";
import { defineRoute } from "./route.js";
import type { RouteDeps } from "./route-deps.js";

/*
 * Each domain request counts against the domain limits, per client address and per project, before
 * its body is read: a claim costs DNS questions about a name the client chose and may hold a name
 * for days.
 */
const domainHeaders = (deps: RouteDeps) => projectHeaders({ ...deps, limits: deps.domainLimits });

/** `POST /projects/:projectSlug/domains`: claim a hostname. */
export const assignDomainRoute = defineRoute({
  method: "post",
  path: "/projects/:projectSlug/domains",
  operation: projectOperation("assign a domain", assignDomainSchema, responses.assignDomain, [409, 502]),
  handlers: (deps) => [
    domainHeaders(deps),
    deps.body,
    async (c) => {
      const { body } = await parseBody(c, assignDomainSchema);
      const input = { ...credentials(c, body), domain: body.domain };
      return c.json(await assignDomain(deps.services, input), 200);
    },
  ],
});

/** `POST /projects/:projectSlug/domains/check`: ask DNS about the custom domain now. */
export const checkDomainRoute = defineRoute({
  method: "post",
  path: "/projects/:projectSlug/domains/check",
  operation: projectOperation(
    "ask DNS about the custom domain now (404 DOMAIN_NOT_ASSIGNED without one)",
    identitySchema,
    responses.assignDomain,
    [502],
  ),
  handlers: (deps) => [
    domainHeaders(deps),
    deps.body,
    async (c) => {
      const { body } = await parseBody(c, identitySchema);
      return c.json(await checkDomain(deps.services, credentials(c, body)), 200);
    },
  ],
});

/** `DELETE /projects/:projectSlug/domains`: back to the generated hostname. */
export const resetDomainRoute = defineRoute({
  method: "delete",
  path: "/projects/:projectSlug/domains",
  operation: projectOperation("reset to the generated domain", identitySchema, responses.resetDomain, [502]),
  handlers: (deps) => [
    domainHeaders(deps),
    deps.body,
    async (c) => {
      const { body } = await parseBody(c, identitySchema);
      return c.json(await resetDomain(deps.services, credentials(c, body)), 200);
    },
  ],
});
