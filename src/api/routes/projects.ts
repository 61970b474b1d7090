import { Hono } from "hono";
import { createProject, deleteProject } from "../../core/operations/index.js";
import type { RateLimiter } from "../../core/rate-limiter.js";
import type { Services } from "../../core/operations/services.js";
import { credentials } from "../request/credentials.js";
import { parseBody } from "../request/parse-body.js";
import { createProjectSchema, identitySchema } from "../request/schemas.js";

/** `POST /projects` and `DELETE /projects/:projectSlug`. */
export function projectRoutes(deps: {
  services: Services;
  limits: { perAddress: RateLimiter; perFingerprint: RateLimiter };
  clientAddress: (c: import("hono").Context) => string;
}): Hono {
  const app = new Hono();

  app.post("/", async (c) => {
    deps.limits.perAddress.hit(deps.clientAddress(c));
    const { body } = await parseBody(c, createProjectSchema);
    deps.limits.perFingerprint.hit(body.anonFingerprint.toLowerCase());
    return c.json(await createProject(deps.services, body), 201);
  });

  app.delete("/:projectSlug", async (c) => {
    const { body } = await parseBody(c, identitySchema);
    return c.json(await deleteProject(deps.services, credentials(c, body)), 200);
  });

  return app;
}
