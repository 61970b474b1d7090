import { openProject, type CommandContext } from "../../context.js";
import { CliError } from "../../errors.js";
import { openInBrowser } from "../../local/browser.js";
import { servingUrl } from "../../project-urls.js";
import { jsonLine } from "./output.js";

/**
 * `deploy open [--preview]`: opens the project's production URL (the one that serves now), or its
 * newest preview's revision URL, in the browser. With --json, or without an opener, it prints the
 * URL instead.
 */
export async function openCommand(ctx: CommandContext, dir: string, preview: boolean): Promise<void> {
  const handle = await openProject(ctx, dir, { lock: false });
  const state = await handle.api.state(handle.project.projectSlug, handle.project.apiToken);
  const { projectSlug } = state.project;
  let url = servingUrl(state.project);
  if (preview) {
    const newest = state.revisions.find((revision) => revision.preview);
    if (newest === undefined) {
      throw new CliError(
        "NO_PREVIEW",
        `${projectSlug} has no preview`,
        "`deploy --preview <dir>` deploys one; `deploy open` opens production.",
      );
    }
    url = newest.revisionUrl;
  }
  if (ctx.json) {
    ctx.io.stdout.write(jsonLine({ projectSlug, url, preview, opened: false }));
    return;
  }
  if (await openInBrowser(url, ctx.io.env)) {
    ctx.io.stdout.write(`Opened ${url}\n`);
    return;
  }
  ctx.io.stdout.write(`${url}\n`);
  ctx.io.stderr.write("No browser opener found (set BROWSER to one); the URL is above.\n");
}
