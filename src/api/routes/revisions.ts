import { Hono } from "hono";
import { projectState, promoteRevision } from "../../core/operations/index.js";
import { credentials } from "../request/credentials.js";
import { parseBody } from "../request/parse-body.js";
import { projectHeaders } from "../request/project-headers.js";
import { identitySchema, promoteSchema } from "../request/schemas.js";
import type { RouteDeps } from "./route-deps.js";

/** `POST /projects/:projectSlug/state` and `POST /projects/:projectSlug/promote`. */
export function revisionRoutes(deps: RouteDeps): Hono {
  const { services } = deps;
  const app = new Hono();

  // POST with a JSON body, as every project route (seed §4): the identity fields travel in it.
  app.post("/:projectSlug/state", projectHeaders(deps), deps.body, async (c) => {
    const { body } = await parseBody(c, identitySchema);
    return c.json(await projectState(services, credentials(c, body)), 200);
  });

  app.post("/:projectSlug/promote", projectHeaders(deps), deps.body, async (c) => {
    const { body } = await parseBody(c, promoteSchema);
    const input = { ...credentials(c, body), revisionId: body.revisionId };
    return c.json(await promoteRevision(services, input), 200);
  });

  return app;
}
