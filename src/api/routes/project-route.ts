import type { z } from "zod";
import type { ProjectCredentials } from "../../core/operations/authorize.js";
import type { Services } from "../../core/operations/services.js";
import { credentials } from "../request/credentials.js";
import { parseBody } from "../request/parse-body.js";
import { projectHeaders, type RouteLimits } from "../request/project-headers.js";
import { projectOperation } from "./operation.js";
import { defineRoute, type ApiRoute } from "./route.js";
import type { RouteDeps } from "./route-deps.js";

type IdentityBody = z.ZodType<{ projectHash: string; anonFingerprint: string }>;

/** A project route as declared: the one schema its body is both validated and documented with. */
export interface ProjectRouteSpec<S extends IdentityBody> {
  method: "post" | "delete";
  path: `/projects/:projectSlug${string}`;
  summary: string;
  body: S;
  /** Its 200 answer, for the document. */
  response: z.ZodType;
  /** The error statuses it answers beyond those of every project route. */
  errors: number[];
  /** Its limits per client address and per project, counted before the body is read. */
  limits?: (deps: RouteDeps) => RouteLimits;
  /** The operation, given the checked credentials and body; its result is answered 200. */
  handle: (services: Services, project: ProjectCredentials, body: z.output<S>) => Promise<unknown>;
}

/**
 * Declares a project route (`/projects/:projectSlug…`, bearer token, JSON body with the identity
 * fields): its headers judged first (`projectHeaders`), then its body read within the budget and
 * parsed with `body`, then `handle`; the OpenAPI operation is written from the same schemas.
 */
export function projectRoute<S extends IdentityBody>(spec: ProjectRouteSpec<S>): ApiRoute {
  return defineRoute({
    method: spec.method,
    path: spec.path,
    operation: () => projectOperation(spec.summary, spec.body, spec.response, spec.errors),
    handlers: (deps) => [
      projectHeaders({ ...deps, ...(spec.limits && { limits: spec.limits(deps) }) }),
      deps.body,
      async (c) => {
        const { body } = await parseBody(c, spec.body);
        return c.json(await spec.handle(deps.services, credentials(c, body), body), 200);
      },
    ],
  });
}
