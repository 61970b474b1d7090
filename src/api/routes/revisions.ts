import { projectState, promoteRevision } from "../../core/operations/index.js";
import { identitySchema, promoteSchema, responses } from "../request/schemas.js";
import { projectRoute } from "./project-route.js";

// POST with a JSON body, as every project route (seed §4): the identity fields travel in it.

/** `POST /projects/:projectSlug/state`: the project and its kept revisions. */
export const stateRoute = projectRoute({
  method: "post",
  path: "/projects/:projectSlug/state",
  summary: "the project and its kept revisions, newest first (answers for an expired project too)",
  body: identitySchema,
  response: responses.state,
  errors: [],
  handle: (services, project) => projectState(services, project),
});

/** `POST /projects/:projectSlug/promote`: a kept revision becomes production. */
export const promoteRoute = projectRoute({
  method: "post",
  path: "/projects/:projectSlug/promote",
  summary: "make a kept revision the production revision (a rollback promotes an older one); idempotent",
  body: promoteSchema,
  response: responses.promote,
  errors: [502],
  handle: (services, project, body) => promoteRevision(services, { ...project, revisionId: body.revisionId }),
});
