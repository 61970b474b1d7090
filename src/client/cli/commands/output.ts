import type { DomainResult, PublicProject } from "../../net/api-types.js";
import type { DeploySummary } from "../../deploy/deploy-folder.js";
import { neverExpires } from "../../../core/project-expiry.js";
import { formatBytes, formatCount, formatDuration, formatTime } from "../../format.js";
import { PLAIN, type Paint } from "../../paint.js";

/** One JSON object and a newline, for `--json`. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/**
 * The `--json` object of a deploy: issue 3's keys with preview and identical, plus
 * skippedDotfiles and skippedGitignored when any was skipped, and previousProjectSlug when the URL
 * changed.
 */
export function deployJson(summary: DeploySummary): string {
  const { projectSlug, revisionId, productionUrl, revisionUrl, preview, files, uploaded, identical } =
    summary;
  const { bytesUploaded, durationMs, skippedDotfiles, skippedGitignored, previousProjectSlug } = summary;
  const { message, alias, aliasUrl, pendingDomain } = summary;
  return jsonLine({
    projectSlug,
    revisionId,
    productionUrl,
    revisionUrl,
    // null: the project never expires (the server's PROJECT_TTL_SECONDS is 0).
    expiresAt: neverExpires(summary.expiresAt) ? null : summary.expiresAt,
    preview,
    ...(summary.unchanged === true ? { unchanged: true } : {}),
    files,
    uploaded,
    identical,
    bytesUploaded,
    durationMs,
    ...(skippedDotfiles.length > 0 ? { skippedDotfiles } : {}),
    ...(skippedGitignored.length > 0 ? { skippedGitignored } : {}),
    ...(previousProjectSlug === undefined ? {} : { previousProjectSlug }),
    ...(message === undefined ? {} : { message }),
    ...(aliasUrl === undefined ? {} : { alias, aliasUrl }),
    ...(pendingDomain === undefined ? {} : { domainPending: true }),
  });
}

/** The human report of a deploy, coloured by `paint` (on a terminal). */
export function deployText(summary: DeploySummary, paint: Paint = PLAIN): string {
  const files =
    `  Files:      ${formatCount(summary.files)} total: ${formatCount(summary.uploaded)} uploaded, ` +
    (summary.identical > 0 ? `${formatCount(summary.identical)} identical to another file, ` : "") +
    `${formatCount(summary.reused)} already on the server`;
  // A pending custom hostname does not serve yet (no DNS, no certificate): show the one that does.
  const production = summary.pendingDomain?.servingUrl ?? summary.productionUrl;
  const head = summary.unchanged
    ? [
        paint.green(
          `No changes: ${summary.projectSlug} already serves these files (revision ${summary.revisionId}); nothing sent, its expiry renewed`,
        ),
        `  Production: ${paint.bold(production)}`,
        `  Revision:   ${summary.revisionUrl}`,
      ]
    : summary.preview
      ? [
          paint.yellow(
            `Preview of ${summary.projectSlug} (revision ${summary.revisionId}); production unchanged`,
          ),
          `  Revision:   ${paint.bold(summary.revisionUrl)}`,
          ...(summary.aliasUrl === undefined
            ? []
            : [
                `  Alias:      ${paint.bold(summary.aliasUrl)} (${summary.alias}: moves to each deploy with --alias ${summary.alias})`,
              ]),
          `  Production: ${production} (unchanged; \`deploy promote ${summary.revisionId}\` puts this revision live)`,
        ]
      : [
          paint.green(`Deployed ${summary.projectSlug} (revision ${summary.revisionId})`),
          `  Production: ${paint.bold(production)}`,
          `  Revision:   ${summary.revisionUrl}`,
        ];
  const lines = [
    ...head,
    ...(summary.pendingDomain === undefined
      ? []
      : [
          paint.yellow(
            `  Domain:     ${summary.pendingDomain.hostname} (pending: DNS does not prove it yet; \`deploy domain --check\` asks again)`,
          ),
        ]),
    ...(summary.message === undefined ? [] : [`  Message:    ${summary.message}`]),
    files,
  ];
  const skipped = skippedText(summary);
  if (skipped !== undefined) lines.push(`  Skipped:    ${skipped}`);
  lines.push(
    `  Sent:       ${formatBytes(summary.bytesUploaded)}`,
    `  Time:       ${formatDuration(summary.durationMs)}`,
    `  Expires:    ${expiryText(summary.expiresAt)}`,
  );
  if (summary.previousProjectSlug !== undefined) {
    lines.push(`  Note: the previous project ${summary.previousProjectSlug} was gone; the URL changed.`);
  }
  return `${lines.join("\n")}\n`;
}

/** How many paths were kept out of the deploy, and why; undefined when none was. */
function skippedText(summary: DeploySummary): string | undefined {
  const reasons = [
    summary.skippedGitignored.length > 0
      ? `${formatCount(summary.skippedGitignored.length)} ignored by .gitignore`
      : "",
    summary.skippedDotfiles.length > 0 ? `${formatCount(summary.skippedDotfiles.length)} dotfiles` : "",
  ].filter((reason) => reason !== "");
  return reasons.length === 0 ? undefined : `${reasons.join(", ")} (not deployed)`;
}

/** When the site stops answering, and how to keep it: every deploy moves the date. */
export function expiryText(expiresAt: string): string {
  if (neverExpires(expiresAt)) return "never (this server keeps projects until they are deleted)";
  return `${formatTime(expiresAt)}, unless deployed again before then (every deploy, even an unchanged one, moves the date)`;
}

/** The human report of an assigned (or checked) domain: where it answers, its status, the DNS records. */
export function domainText(result: DomainResult): string {
  const { domain, project } = result;
  const lines = [
    `${project.projectSlug} now answers at ${domain.hostname}`,
    `  Production: ${project.productionUrl}`,
  ];
  if (domain.hostname !== project.generatedHostname) {
    // The generated address keeps serving (naming the domain as canonical): old links still work.
    const generatedUrl = new URL(project.productionUrl);
    generatedUrl.hostname = project.generatedHostname;
    lines.push(`  Also at:    ${generatedUrl.href} (the generated address keeps serving)`);
  }
  const cname = domain.records.find((r) => r.type === "CNAME");
  const txt = domain.records.find((r) => r.type === "TXT");
  if (cname) lines.push(`  DNS:        point a CNAME record for ${cname.name} at ${cname.value}`);
  if (txt) lines.push(`              or prove control with a TXT record ${txt.name} holding ${txt.value}`);
  if (domain.status === "active") {
    lines.push(`  Status:     active${domain.message ? ` (${domain.message})` : ""}`);
  } else {
    lines.push(`  Status:     pending: ${domain.message ?? "DNS not checked yet"}`);
    lines.push(
      `              HTTPS waits for the proof; the claim lapses ${domain.pendingUntil === null ? "later" : formatTime(domain.pendingUntil)} without it. Check again: deploy domain --check`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The human report of a domain reset. */
export function resetText(project: PublicProject): string {
  return `${project.projectSlug} is back on its generated hostname ${project.generatedHostname}\n  Production: ${project.productionUrl}\n`;
}

/** The human report of a deletion. */
export function deleteText(projectSlug: string, productionUrl: string | undefined): string {
  const where = productionUrl === undefined ? "" : `; ${productionUrl} no longer answers`;
  return `Deleted project ${projectSlug}${where}\n`;
}
