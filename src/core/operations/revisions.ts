import type { RevisionRecord } from "../ports/store.js";
import { InvalidRequestError, RevisionNotFoundError } from "../errors.js";
import { REVISION_ID } from "../formats.js";
import { revisionUrl } from "../site-urls.js";
import { type PublicProject, type Services, toPublicProject } from "./services.js";
import { authorize, type ProjectCredentials } from "./authorize.js";
import { callPlatform } from "./platform-call.js";
import { withProjectLock } from "./project-lock.js";

/** A kept revision as the API shows it. */
export interface RevisionSummary {
  revisionId: string;
  createdAt: string;
  files: number;
  bytes: number;
  /** The revision the project's hostnames serve. */
  production: boolean;
  /** Completed as a preview (production was left where it was). */
  preview: boolean;
  revisionUrl: string;
  /** The deploy's message, null without one. */
  message: string | null;
}

/** The state route's answer: the project and its kept revisions, newest first. */
export interface ProjectState {
  project: PublicProject;
  revisions: RevisionSummary[];
}

/** The promote route's answer: the deploy answer's shape, for the revision now in production. */
export interface PromotedRevision {
  revisionId: string;
  productionUrl: string;
  revisionUrl: string;
  project: PublicProject;
}

/**
 * The project's public metadata and its kept revisions. An expired project still answers (as
 * DELETE does), so its owner can see what it held.
 */
export async function projectState(services: Services, input: ProjectCredentials): Promise<ProjectState> {
  const project = await authorize(services, input, { allowExpired: true });
  const revisions = await services.store.listRevisions(project.slug);
  return {
    project: toPublicProject(project, services.config.sites),
    revisions: revisions.map((revision) => summary(services, project.slug, project.revisionId, revision)),
  };
}

/**
 * Makes a kept revision the production revision (a rollback promotes an older one): the platform
 * switches the project's hostnames to it in one step, then the store records it. Promoting the
 * revision already in production changes nothing and answers the same. A revision the project
 * never had, or one retention pruned, is 404 REVISION_NOT_FOUND.
 */
export async function promoteRevision(
  services: Services,
  input: ProjectCredentials & { revisionId: string },
): Promise<PromotedRevision> {
  // Formats first (contract §5).
  if (!REVISION_ID.test(input.revisionId)) {
    throw new InvalidRequestError("revisionId: 10 characters of a-z and 0-9");
  }
  const project = await authorize(services, input);
  return withProjectLock(services, project, async (current) => {
    const kept = await services.store.listRevisions(current.slug);
    if (!kept.some((revision) => revision.revisionId === input.revisionId)) {
      throw new RevisionNotFoundError(`revision ${input.revisionId} not found for project ${current.slug}`);
    }
    // Platform first, as a deploy does: if the store write then fails, the same promote again
    // succeeds (idempotent), and the store never names a production revision the edge lacks.
    await callPlatform(() => services.platform.promoteRevision(current.slug, input.revisionId));
    const promoted = await services.store.setProductionRevision(current.slug, input.revisionId);
    if (!promoted) {
      throw new RevisionNotFoundError(`revision ${input.revisionId} not found for project ${current.slug}`);
    }
    const publicProject = toPublicProject(promoted, services.config.sites);
    return {
      revisionId: input.revisionId,
      productionUrl: publicProject.productionUrl,
      revisionUrl: revisionUrl(input.revisionId, current.slug, services.config.sites),
      project: publicProject,
    };
  });
}

function summary(
  services: Services,
  slug: string,
  productionId: string | null,
  revision: RevisionRecord,
): RevisionSummary {
  return {
    revisionId: revision.revisionId,
    createdAt: revision.createdAt,
    files: revision.fileCount,
    bytes: revision.byteCount,
    production: revision.revisionId === productionId,
    preview: revision.preview,
    revisionUrl: revisionUrl(revision.revisionId, slug, services.config.sites),
    message: revision.message,
  };
}
