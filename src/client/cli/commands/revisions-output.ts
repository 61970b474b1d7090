import type { ProjectState, PromotedRevision, RevisionSummary } from "../../net/api-types.js";
import { neverExpires } from "../../../core/project-expiry.js";
import { formatBytes, formatCount, formatTime, plural } from "../../format.js";
import { jsonLine } from "./output.js";

/** The production revision of a state answer, if any. */
export function productionOf(state: ProjectState): RevisionSummary | undefined {
  return state.revisions.find((revision) => revision.production);
}

/** `deploy status --json`: the project's state, flat for scripts. */
export function statusJson(state: ProjectState, now: Date): string {
  const { project } = state;
  return jsonLine({
    projectSlug: project.projectSlug,
    productionUrl: project.productionUrl,
    revisionId: project.revisionId,
    revisionUrl: productionOf(state)?.revisionUrl ?? null,
    hostname: project.hostname,
    customHostname: project.customHostname,
    createdAt: project.createdAt,
    expiresAt: project.expiresAt,
    expired: Date.parse(project.expiresAt) <= now.getTime(),
    revisions: state.revisions.length,
  });
}

/** `deploy status`: the project's state for people. */
export function statusText(state: ProjectState, now: Date): string {
  const { project } = state;
  const live = productionOf(state);
  const expiresIn = Date.parse(project.expiresAt) - now.getTime();
  const lines = [
    `Project ${project.projectSlug}`,
    `  Production: ${project.productionUrl}${project.revisionId === null ? " (nothing deployed to production yet)" : ""}`,
    `  Revision:   ${live === undefined ? "none" : `${live.revisionId}, deployed ${when(live.createdAt)} (${plural(live.files, "file")}, ${formatBytes(live.bytes)})`}`,
    `  Domain:     ${project.customHostname ?? `${project.generatedHostname} (generated)`}`,
    `  Revisions:  ${formatCount(state.revisions.length)} kept (\`deploy list\` shows them)`,
    `  Expires:    ${neverExpires(project.expiresAt) ? "never (this server keeps projects until they are deleted)" : `${when(project.expiresAt)} ${expiresIn <= 0 ? "(expired: deploy again to start a new project)" : `(in ${days(expiresIn)}; every deploy moves it)`}`}`,
  ];
  return `${lines.join("\n")}\n`;
}

/** `deploy list --json`. */
export function listJson(state: ProjectState): string {
  return jsonLine({ projectSlug: state.project.projectSlug, revisions: state.revisions });
}

/** `deploy list`: one line per kept revision, newest first, production and previews marked. */
export function listText(state: ProjectState): string {
  if (state.revisions.length === 0) {
    return `${state.project.projectSlug} has no revision yet: \`deploy <dir>\` makes the first.\n`;
  }
  const rows = state.revisions.map((revision) => [
    revision.production ? "*" : " ",
    revision.revisionId,
    when(revision.createdAt),
    formatCount(revision.files),
    formatBytes(revision.bytes),
    revision.production ? "production" : revision.preview ? "preview" : "",
  ]);
  const header = [" ", "REVISION", "DEPLOYED", "FILES", "SIZE", ""];
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column]!.length)));
  const render = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 3 || column === 4 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join("  ")
      .trimEnd();
  return `${[header, ...rows].map(render).join("\n")}\n${plural(state.revisions.length, "revision")} kept for ${state.project.projectSlug}; * serves ${state.project.productionUrl}\n`;
}

/** `deploy promote` and `deploy rollback` with --json: the server's answer and what was live before. */
export function promotedJson(result: PromotedRevision, previousRevisionId: string | null): string {
  return jsonLine({ ...result, previousRevisionId });
}

/** `deploy promote` and `deploy rollback` for people. */
export function promotedText(
  verb: string,
  result: PromotedRevision,
  previousRevisionId: string | null,
): string {
  const was =
    previousRevisionId === null
      ? ""
      : previousRevisionId === result.revisionId
        ? " (it already was)"
        : ` (was ${previousRevisionId})`;
  return (
    `${verb} ${result.project.projectSlug}: production serves revision ${result.revisionId}${was}\n` +
    `  Production: ${result.productionUrl}\n` +
    `  Revision:   ${result.revisionUrl}\n`
  );
}

const when = formatTime;

function days(ms: number): string {
  const count = Math.floor(ms / 86_400_000);
  if (count >= 1) return plural(count, "day");
  return plural(Math.max(1, Math.floor(ms / 3_600_000)), "hour");
}
