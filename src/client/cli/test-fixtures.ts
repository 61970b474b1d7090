// Fixtures of the cli's unit tests (test-*.ts files are not built).
import type { PublicProject } from "../net/api-types.js";
import type { Paint } from "../paint.js";

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

/** A project as the API describes it: calm-river-abc12 on its generated hostname, no custom one. */
export function publicProject(overrides: Partial<PublicProject> = {}): PublicProject {
  return {
    projectSlug: "calm-river-abc12",
    hostname: "calm-river-abc12.example.com",
    generatedHostname: "calm-river-abc12.example.com",
    customHostname: null,
    customHostnameStatus: null,
    productionUrl: "https://calm-river-abc12.example.com/",
    revisionId: "rev0000001",
    createdAt: "2026-11-28T10:20:30.000Z",
    expiresAt: "2026-12-28T10:20:30.000Z",
    ...overrides,
  };
}
