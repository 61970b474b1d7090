import type { Context } from "hono";
import type { ProjectCredentials } from "../../core/operations/authorize.js";
import type { ProjectRecord } from "../../core/ports/store.js";
import { InvalidRequestError } from "../../core/errors.js";
import { isProjectSlug } from "../../core/formats.js";
import { bearerToken } from "../../shared/bearer.js";

/** The slug from the path; a malformed one is a 400 like any other malformed field. */
export function projectSlugParam(c: Context): string {
  const slug = c.req.param("projectSlug") ?? "";
  if (!isProjectSlug(slug)) throw new InvalidRequestError("projectSlug: not a valid project slug");
  return slug;
}

/**
 * A project route's credentials: path slug, bearer token, the identity fields of the body, and the
 * project the token belongs to when `projectHeaders` authenticated it (not read again).
 */
export function credentials(
  c: Context,
  body: { projectHash: string; anonFingerprint: string },
): ProjectCredentials {
  const authenticated = c.get("authenticatedProject") as ProjectRecord | undefined;
  return {
    projectSlug: projectSlugParam(c),
    apiToken: bearerToken(c.req.header("authorization")),
    projectHash: body.projectHash,
    anonFingerprint: body.anonFingerprint,
    ...(authenticated && { authenticated }),
  };
}
