import { deployRoute, prepareRoute } from "./deploys.js";
import { assignDomainRoute, checkDomainRoute, resetDomainRoute } from "./domains.js";
import { healthRoute, healthzRoute } from "./health.js";
import { limitsRoute } from "./limits.js";
import { createProjectRoute, deleteProjectRoute } from "./projects.js";
import { promoteRoute, stateRoute } from "./revisions.js";
import type { ApiRoute } from "./route.js";
import type { RouteDeps } from "./route-deps.js";
import { tlsAskRoute } from "./tls-ask.js";

/**
 * Every route of the Deploy API, in the order of its OpenAPI document: the app registers them and
 * the document describes them from this one list (a new route is one declaration and one line here).
 */
export const API_ROUTES: readonly ApiRoute<RouteDeps>[] = [
  healthRoute,
  healthzRoute,
  limitsRoute,
  createProjectRoute,
  deleteProjectRoute,
  prepareRoute,
  deployRoute,
  stateRoute,
  promoteRoute,
  assignDomainRoute,
  resetDomainRoute,
  checkDomainRoute,
  tlsAskRoute,
];
