import { Hono } from "hono";
import { completeDeploy, prepareDeploy } from "../../core/operations/index.js";
import { credentials } from "../request/credentials.js";
import { parseBody } from "../request/parse-body.js";
import { parsePrepareBody } from "../request/parse-prepare-body.js";
import { projectHeaders, type RouteLimits } from "../request/project-headers.js";
import { deploySchema, prepareRequestSchema } from "../request/schemas.js";
import type { RouteDeps } from "./route-deps.js";

/** `POST /projects/:projectSlug/prepare` and `POST /projects/:projectSlug/deploy`. */
export function deployRoutes(deps: RouteDeps & { prepareLimits: RouteLimits }): Hono {
  const { services } = deps;
  const app = new Hono();

  app.post(
    "/:projectSlug/prepare",
    projectHeaders({ ...deps, limits: deps.prepareLimits }),
    deps.body,
    async (c) => {
      const { body, raw } = await parsePrepareBody(c, prepareRequestSchema, {
        slug: c.req.param("projectSlug"),
        limits: services.config.limits,
      });
      const input = {
        ...credentials(c, body),
        manifest: raw.manifest,
        skipUnchanged: body.skipUnchanged,
        manifestDigest: body.manifestDigest,
        clientAddress: deps.clientAddress(c),
      };
      return c.json(await prepareDeploy(services, input), 200);
    },
  );

  app.post("/:projectSlug/deploy", projectHeaders(deps), deps.body, async (c) => {
    const { body } = await parseBody(c, deploySchema);
    const result = await completeDeploy(services, {
      ...credentials(c, body),
      deployId: body.deployId,
      completionJwt: body.completionJwt,
      preview: body.preview,
      siteRules: body.siteRules,
      message: body.message,
      alias: body.alias,
    });
    return c.json(result, 200);
  });

  return app;
}
