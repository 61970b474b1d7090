import { createProject, deleteProject } from "../../core/operations/index.js";
import { parseBody } from "../request/parse-body.js";
import { createProjectSchema, identitySchema, responses } from "../request/schemas.js";
import { BODY_ROUTE_ERRORS, errorResponses, json } from "./operation.js";
import { projectRoute } from "./project-route.js";
import { defineRoute } from "./route.js";

/** `POST /projects`: an anonymous project and its token, returned once. */
export const createProjectRoute = defineRoute({
  method: "post",
  path: "/projects",
  operation: () => ({
    summary: "create an anonymous project; the apiToken is returned once",
    requestBody: { required: true, ...json(createProjectSchema) },
    responses: {
      "201": { description: "created", ...json(responses.createProject) },
      ...errorResponses([...BODY_ROUTE_ERRORS, 413]),
    },
  }),
  handlers: (deps) => [
    async (c, next) => {
      // Counted before the body is read, so a flood of malformed requests is limited too.
      await deps.createLimits.perAddress.hit(deps.clientAddress(c));
      await next();
    },
    deps.body,
    async (c) => {
      const { body } = await parseBody(c, createProjectSchema);
      await deps.createLimits.perFingerprint.hit(body.anonFingerprint.toLowerCase());
      const input = { ...body, clientAddress: deps.clientAddress(c) };
      return c.json(await createProject(deps.services, input), 201);
    },
  ],
});

/** `DELETE /projects/:projectSlug`: the project and its site go. */
export const deleteProjectRoute = projectRoute({
  method: "delete",
  path: "/projects/:projectSlug",
  summary: "delete the project",
  body: identitySchema,
  response: responses.deleteProject,
  errors: [502],
  handle: (services, project) => deleteProject(services, project),
});
