import { projectState, promoteRevision } from "../../core/operations/index.js";
import { credentials } from "../request/credentials.js";
import { parseBody } from "../request/parse-body.js";
import { projectHeaders } from "../request/project-headers.js";
import { identitySchema, promoteSchema, responses } from "../request/schemas.js";
import { projectOperation } from "./operation.js";
import { defineRoute } from "./route.js";

// POST with a JSON body, as every project route (seed §4): the identity fields travel in it.

/** `POST /projects/:projectSlug/state`: the project and its kept revisions. */
export const stateRoute = defineRoute({
  method: "post",
  path: "/projects/:projectSlug/state",
  operation: projectOperation(
    "the project and its kept revisions, newest first (answers for an expired project too)",
    identitySchema,
    responses.state,
    [],
  ),
  handlers: (deps) => [
    projectHeaders(deps),
    deps.body,
    async (c) => {
      const { body } = await parseBody(c, identitySchema);
      return c.json(await projectState(deps.services, credentials(c, body)), 200);
    },
  ],
});

/** `POST /projects/:projectSlug/promote`: a kept revision becomes production. */
export const promoteRoute = defineRoute({
  method: "post",
  path: "/projects/:projectSlug/promote",
  operation: projectOperation(
    "make a kept revision the production revision (a rollback promotes an older one); idempotent",
    promoteSchema,
    responses.promote,
    [502],
  ),
  handlers: (deps) => [
    projectHeaders(deps),
    deps.body,
    async (c) => {
      const { body } = await parseBody(c, promoteSchema);
      const input = { ...credentials(c, body), revisionId: body.revisionId };
      return c.json(await promoteRevision(deps.services, input), 200);
    },
  ],
});
