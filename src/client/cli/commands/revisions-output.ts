import type { ProjectState, PromotedRevision, RevisionSummary } from "../../net/api-types.js";
import { neverExpires } from "../../../core/project-expiry.js";
import { formatBytes, formatCount, formatTime, plural } from "../../format.js";
import { jsonLine } from "./output.js";
import { PLAIN, type Paint } from "../../paint.js";
import { domainPending, servingUrl } from "../../project-urls.js";

/** The production revision of a state answer, if any. */
export function productionOf(state: ProjectState): RevisionSummary | undefined {
  return state.revisions.find((revision) => revision.production);
}

/** `deploy status --json`: the project's state, flat for scripts. */
export function statusJson(state: ProjectState, now: Date): string {
  const { project } = state;
  const live = productionOf(state);
  return jsonLine({
    projectSlug: project.projectSlug,
    productionUrl: project.productionUrl,
    revisionId: project.revisionId,
    revisionUrl: productionOf(state)?.revisionUrl ?? null,
    hostname: project.hostname,
    customHostname: project.customHostname,
    ...(domainPending(project) ? { customHostnameStatus: "pending" } : {}),
    ...(live?.message == null ? {} : { message: live.message }),
    createdAt: project.createdAt,
    expiresAt: project.expiresAt,
    expired: Date.parse(project.expiresAt) <= now.getTime(),
    revisions: state.revisions.length,
  });
}

/** `deploy status`: the project's state for people, coloured by `paint` (on a terminal). */
export function statusText(state: ProjectState, now: Date, paint: Paint = PLAIN): string {
  const { project } = state;
  const live = productionOf(state);
  const expiresIn = Date.parse(project.expiresAt) - now.getTime();
  // A pending custom hostname does not serve yet (no DNS proof, no certificate): the generated one does.
  const domain =
    project.customHostname === null
      ? `${project.generatedHostname} (generated)`
      : domainPending(project)
        ? paint.yellow(
            `${project.customHostname} (pending: DNS does not prove it yet; \`deploy domain --check\` asks again)`,
          )
        : project.customHostname;
  const lines = [
    `Project ${paint.bold(project.projectSlug)}`,
    `  Production: ${paint.bold(servingUrl(project))}${project.revisionId === null ? " (nothing deployed to production yet)" : ""}`,
    `  Revision:   ${live === undefined ? "none" : `${live.revisionId}, deployed ${when(live.createdAt)} (${plural(live.files, "file")}, ${formatBytes(live.bytes)})`}`,
    ...(live?.message == null ? [] : [`  Message:    ${live.message}`]),
    `  Domain:     ${domain}`,
    `  Revisions:  ${formatCount(state.revisions.length)} kept (\`deploy list\` shows them)`,
    `  Expires:    ${neverExpires(project.expiresAt) ? "never (this server keeps projects until they are deleted)" : `${when(project.expiresAt)} ${expiresIn <= 0 ? "(expired: deploy again to start a new project)" : `(in ${days(expiresIn)}; every deploy moves it)`}`}`,
  ];
  return `${lines.join("\n")}\n`;
}

/** `deploy list --json`. */
export function listJson(state: ProjectState): string {
  return jsonLine({ projectSlug: state.project.projectSlug, revisions: state.revisions });
}

/** `deploy list`: one line per kept revision, newest first, production and previews marked, with messages. */
export function listText(state: ProjectState, paint: Paint = PLAIN): string {
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
    clip(revision.message ?? "", 72),
  ]);
  const messages = rows.some((row) => row[6] !== "");
  const header = [" ", "REVISION", "DEPLOYED", "FILES", "SIZE", "", messages ? "MESSAGE" : ""];
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column]!.length)));
  const render = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 3 || column === 4 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join("  ")
      .trimEnd();
  const lines = [render(header), ...rows.map((row, i) => paintRow(render(row), state.revisions[i]!, paint))];
  return `${lines.join("\n")}\n${plural(state.revisions.length, "revision")} kept for ${state.project.projectSlug}; * serves ${servingUrl(state.project)}\n`;
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

/** `text` cut to `max` characters, an ellipsis saying so (status shows a message whole). */
function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** The production row in green, previews in yellow. */
function paintRow(line: string, revision: RevisionSummary, paint: Paint): string {
  return revision.production ? paint.green(line) : revision.preview ? paint.yellow(line) : line;
}

const when = formatTime;

function days(ms: number): string {
  const count = Math.floor(ms / 86_400_000);
  if (count >= 1) return plural(count, "day");
  return plural(Math.max(1, Math.floor(ms / 3_600_000)), "hour");
}
