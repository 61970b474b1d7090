import { z } from "zod";
import { completeDeploy, prepareDeploy } from "../../core/operations/index.js";
import { credentials } from "../request/credentials.js";
import { parsePrepareBody } from "../request/parse-prepare-body.js";
import { projectHeaders } from "../request/project-headers.js";
import { deploySchema, prepareRequestSchema, prepareSchema, responses } from "../request/schemas.js";
import { projectOperation } from "./operation.js";
import { projectRoute } from "./project-route.js";
import { defineRoute } from "./route.js";

/** `POST /projects/:projectSlug/prepare`: record the manifest, answer what to upload. */
export const prepareRoute = defineRoute({
  method: "post",
  path: "/projects/:projectSlug/prepare",
  operation: () =>
    projectOperation(
      "prepare a deploy",
      prepareSchema,
      // The unchanged answer only to a client that sent skipUnchanged.
      z.union([responses.prepare, responses.prepareUnchanged]),
      [409, 413, 502, 507],
    ),
  handlers: (deps) => [
    projectHeaders({ ...deps, limits: deps.prepareLimits }),
    deps.body,
    async (c) => {
      // The document's schema is prepareSchema; the manifest itself is checked by the core, in slices.
      const { body, raw } = await parsePrepareBody(c, prepareRequestSchema, {
        slug: c.req.param("projectSlug") ?? "",
        limits: deps.services.config.limits,
      });
      const input = {
        ...credentials(c, body),
        manifest: raw.manifest,
        skipUnchanged: body.skipUnchanged,
        manifestDigest: body.manifestDigest,
        clientAddress: deps.clientAddress(c),
      };
      return c.json(await prepareDeploy(deps.services, input), 200);
    },
  ],
});

/** `POST /projects/:projectSlug/deploy`: publish the prepared revision. */
export const deployRoute = projectRoute({
  method: "post",
  path: "/projects/:projectSlug/deploy",
  summary: "complete a deploy",
  body: deploySchema,
  response: responses.deploy,
  errors: [409, 422, 502],
  handle: (services, project, body) =>
    completeDeploy(services, {
      ...project,
      deployId: body.deployId,
      completionJwt: body.completionJwt,
      preview: body.preview,
      siteRules: body.siteRules,
      message: body.message,
      alias: body.alias,
    }),
});
