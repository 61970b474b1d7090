import { Hono } from "hono";
import { createProject, deleteProject } from "../../core/operations/index.js";
import type { Limiter } from "../../core/rate-limiter.js";
import { credentials } from "../request/credentials.js";
import { parseBody } from "../request/parse-body.js";
import { projectHeaders } from "../request/project-headers.js";
import { createProjectSchema, identitySchema } from "../request/schemas.js";
import type { RouteDeps } from "./route-deps.js";

/** `POST /projects` and `DELETE /projects/:projectSlug`. */
export function projectRoutes(
  deps: RouteDeps & { createLimits: { perAddress: Limiter; perFingerprint: Limiter } },
): Hono {
  const { services, createLimits } = deps;
  const app = new Hono();

  app.post(
    "/",
    async (c, next) => {
      // Counted before the body is read, so a flood of malformed requests is limited too.
      await createLimits.perAddress.hit(deps.clientAddress(c));
      await next();
    },
    deps.body,
    async (c) => {
      const { body } = await parseBody(c, createProjectSchema);
      await createLimits.perFingerprint.hit(body.anonFingerprint.toLowerCase());
      return c.json(await createProject(services, { ...body, clientAddress: deps.clientAddress(c) }), 201);
    },
  );

  app.delete("/:projectSlug", projectHeaders(deps), deps.body, async (c) => {
    const { body } = await parseBody(c, identitySchema);
    return c.json(await deleteProject(services, credentials(c, body)), 200);
  });

  return app;
}
