// Fixtures of the cli's unit tests (test-*.ts files are not built): the paint marks and what
// the API answers about a project.
import type { ProjectState, PublicProject, RevisionSummary } from "../net/api-types.js";
import type { Paint } from "../paint.js";

/** The project the tests act on. */
export const SLUG = "calm-river-abc12";

/** The expiry a server that keeps projects until they are deleted gives. */
export const NEVER = "9999-12-31T23:59:59.999Z";

/** Marks each style, so a test sees which text was painted how. */
export const MARKS: Paint = {
  bold: (text) => `<b>${text}</b>`,
  green: (text) => `<g>${text}</g>`,
  yellow: (text) => `<y>${text}</y>`,
  red: (text) => `<r>${text}</r>`,
  dim: (text) => `<d>${text}</d>`,
};

/**
 * A project as the API describes it (docs/contract.md §3): on its generated hostname (from its
 * slug, SLUG unless told), no custom one, rev0000002 in production.
 */
export function publicProject(overrides: Partial<PublicProject> = {}): PublicProject {
  const slug = overrides.projectSlug ?? SLUG;
  return {
    projectSlug: slug,
    hostname: `${slug}.sites.test`,
    generatedHostname: `${slug}.sites.test`,
    customHostname: null,
    customHostnameStatus: null,
    productionUrl: `https://${slug}.sites.test/`,
    revisionId: "rev0000002",
    createdAt: "2026-11-01T09:00:00.000Z",
    expiresAt: "2026-12-20T09:00:00.000Z",
    ...overrides,
  };
}

/** One kept revision of SLUG as the state route lists it (neither production nor preview unless told). */
export function revision(revisionId: string, fields: Partial<RevisionSummary> = {}): RevisionSummary {
  return {
    revisionId,
    createdAt: "2026-11-20T08:30:00.000Z",
    files: 3,
    bytes: 2048,
    production: false,
    preview: false,
    revisionUrl: `https://${revisionId}--${SLUG}.sites.test/`,
    message: null,
    ...fields,
  };
}

/** The state route's answer: `publicProject(project)` and `revisions`, newest first. */
export function stateAnswer(
  revisions: RevisionSummary[],
  project: Partial<PublicProject> = {},
): ProjectState {
  return { project: publicProject(project), revisions };
}
