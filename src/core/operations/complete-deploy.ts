import type { PublishInput } from "../ports/platform.js";
import type { DeployRecord, ProjectRecord } from "../ports/store.js";
import { DeployAlreadyCompletedError, DeployExpiredError, DeployNotFoundError } from "../errors.js";
import { digestsEqual, sha256Hex } from "../ids.js";
import { type PublicProject, type Services, toPublicProject } from "./services.js";
import { projectExpiry } from "../project-expiry.js";
import { siteSettings } from "./site-routing.js";
import { aliasUrl, revisionUrl } from "../site-urls.js";
import { authorize, hasPassed, type ProjectCredentials } from "./authorize.js";
import { callPlatform } from "./platform-call.js";
import { withProjectLock } from "./project-lock.js";
import { pruneProjectRevisions } from "./retention.js";

/** The deploy response (contract §3). */
export interface CompletedDeploy {
  revisionId: string;
  productionUrl: string;
  revisionUrl: string;
  /** With an alias: the stable preview URL that now serves this revision. */
  aliasUrl?: string;
  project: PublicProject;
}

/**
 * Completes a prepared deploy: the platform checks the completion token and publishes the revision,
 * then the store records it and moves the project's published revision in one transaction. A
 * preview is recorded and served on its revision URL only: production stays where it was. The
 * same deployId and completion token again returns the same result.
 */
export async function completeDeploy(
  services: Services,
  input: ProjectCredentials & {
    deployId: string;
    completionJwt: string;
    preview?: boolean;
    siteRules?: PublishInput["siteRules"];
    /** Stored with the revision. */
    message?: string;
    /** A preview alias that serves this revision from now on (contract §3). */
    alias?: string;
  },
): Promise<CompletedDeploy> {
  const { store, platform, config } = services;
  const project = await authorize(services, input);
  const completionHash = sha256Hex(input.completionJwt);
  return withProjectLock(services, project, async (current) => {
    const deploy = await store.getDeploy(project.slug, input.deployId);
    if (!deploy)
      throw new DeployNotFoundError(`deploy ${input.deployId} not found for project ${project.slug}`);
    if (deploy.completedAt !== null) return repeatCompletion(services, deploy, current, completionHash);
    const now = services.now();
    if (hasPassed(deploy.expiresAt, now)) {
      throw new DeployExpiredError("deploy preparation expired; prepare the deploy again");
    }
    const projectExpiresAt = projectExpiry(now, config.projectTtlSeconds);
    // Publish first: if the store write then fails, a retry publishes the same revision again
    // (idempotent), whereas the other order could acknowledge a revision the edge never got.
    await callPlatform(() =>
      platform.publishRevision({
        projectSlug: project.slug,
        revisionId: deploy.revisionId,
        sessionId: deploy.sessionId,
        completionJwt: input.completionJwt,
        // The hostnames as they are now, under the lock: a domain change meanwhile is kept.
        ...siteSettings(current, config.sites, projectExpiresAt),
        preview: input.preview,
        siteRules: input.siteRules,
        alias: input.alias,
      }),
    );
    const published = await store.completeDeploy({
      projectSlug: project.slug,
      deployId: deploy.deployId,
      completionHash,
      completedAt: now.toISOString(),
      projectExpiresAt: projectExpiresAt.toISOString(),
      preview: input.preview,
      message: input.message,
    });
    // The revision is recorded: one more may take the project past REVISIONS_MAX. A failure
    // here leaves it to the sweep rather than failing a deploy that is done.
    await pruneProjectRevisions(services, published).catch(() => undefined);
    return withAlias(
      services,
      result(services, deploy.revisionId, toPublicProject(published, config.sites)),
      input.alias,
    );
  });
}

function repeatCompletion(
  services: Services,
  deploy: DeployRecord,
  project: ProjectRecord,
  completionHash: string,
): CompletedDeploy {
  if (!deploy.completionHash || !digestsEqual(deploy.completionHash, completionHash)) {
    throw new DeployAlreadyCompletedError();
  }
  return result(services, deploy.revisionId, toPublicProject(project, services.config.sites));
}

/** The answer with `aliasUrl` when the deploy named an alias. */
function withAlias(services: Services, answer: CompletedDeploy, alias: string | undefined): CompletedDeploy {
  if (alias === undefined) return answer;
  return { ...answer, aliasUrl: aliasUrl(alias, answer.project.projectSlug, services.config.sites) };
}

function result(services: Services, revisionId: string, project: PublicProject): CompletedDeploy {
  return {
    revisionId,
    productionUrl: project.productionUrl,
    revisionUrl: revisionUrl(revisionId, project.projectSlug, services.config.sites),
    project,
  };
}
