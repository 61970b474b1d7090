import { openProject, type CommandContext } from "../../context.js";
import { CliError } from "../../errors.js";
import type { ProjectState } from "../../net/api-types.js";
import { promotedJson, promotedText } from "./revisions-output.js";

/**
 * `deploy promote <revision>` and `deploy rollback [revision]`: makes a kept revision production.
 * A rollback without a revision takes the one before the current one: the next older revision
 * that is not a preview (a preview was never live).
 */
export async function promoteCommand(
  ctx: CommandContext,
  dir: string,
  revisionId: string | undefined,
  verb: "rollback" | "promote",
): Promise<void> {
  const handle = await openProject(ctx, dir, { lock: true });
  try {
    const { projectSlug, apiToken } = handle.project;
    const state = await handle.api.state(projectSlug, apiToken);
    const previous = state.project.revisionId;
    const target = revisionId ?? previousRevision(state);
    const result = await handle.api.promote(projectSlug, apiToken, target);
    if (handle.folder !== undefined) {
      await handle.folder.savedProjects.put(handle.folder.identityHash, {
        ...handle.project,
        productionUrl: result.productionUrl,
      });
    }
    const label = verb === "rollback" ? "Rolled back" : "Promoted";
    ctx.io.stdout.write(ctx.json ? promotedJson(result, previous) : promotedText(label, result, previous));
  } finally {
    await handle.release();
  }
}

/** The revision before the production one: the next older one that is not a preview. */
function previousRevision(state: ProjectState): string {
  const revisions = state.revisions;
  const live = revisions.findIndex((revision) => revision.production);
  const older = live === -1 ? undefined : revisions.slice(live + 1).find((revision) => !revision.preview);
  if (older === undefined) {
    throw new CliError(
      "NO_PREVIOUS_REVISION",
      live === -1
        ? `${state.project.projectSlug} has no production revision to roll back from`
        : `${state.project.projectSlug} keeps no revision older than the live one (${revisions[live]!.revisionId})`,
      "`deploy list` shows the revisions; `deploy rollback <revision>` names one.",
    );
  }
  return older.revisionId;
}
