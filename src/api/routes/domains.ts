import { assignDomain, checkDomain, resetDomain } from "../../core/operations/index.js";
import { assignDomainSchema, identitySchema, responses } from "../request/schemas.js";
import { projectRoute } from "./project-route.js";
import type { RouteDeps } from "./route-deps.js";

/*
 * Each domain request counts against the domain limits, per client address and per project, before
 * its body is read: a claim costs DNS questions about a name the client chose and may hold a name
 * for days.
 */
const limits = (deps: RouteDeps) => deps.domainLimits;

/** `POST /projects/:projectSlug/domains`: claim a hostname. */
export const assignDomainRoute = projectRoute({
  method: "post",
  path: "/projects/:projectSlug/domains",
  summary: "assign a domain",
  body: assignDomainSchema,
  response: responses.assignDomain,
  errors: [409, 502],
  limits,
  handle: (services, project, body) => assignDomain(services, { ...project, domain: body.domain }),
});

/** `POST /projects/:projectSlug/domains/check`: ask DNS about the custom domain now. */
export const checkDomainRoute = projectRoute({
  method: "post",
  path: "/projects/:projectSlug/domains/check",
  summary: "ask DNS about the custom domain now (404 DOMAIN_NOT_ASSIGNED without one)",
  body: identitySchema,
  response: responses.assignDomain,
  errors: [502],
  limits,
  handle: (services, project) => checkDomain(services, project),
});

/** `DELETE /projects/:projectSlug/domains`: back to the generated hostname. */
export const resetDomainRoute = projectRoute({
  method: "delete",
  path: "/projects/:projectSlug/domains",
  summary: "reset to the generated domain",
  body: identitySchema,
  response: responses.resetDomain,
  errors: [502],
  limits,
  handle: (services, project) => resetDomain(services, project),
});
