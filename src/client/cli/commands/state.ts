import { openProject, type CommandContext } from "../../context.js";
import { paintFor } from "../../paint.js";
import { listJson, listText, statusJson, statusText } from "./revisions-output.js";

/** `deploy status` and `deploy list`: the project's state, or its kept revisions. */
export async function stateCommand(ctx: CommandContext, dir: string, what: "status" | "list"): Promise<void> {
  const handle = await openProject(ctx, dir, { lock: false });
  const state = await handle.api.state(handle.project.projectSlug, handle.project.apiToken);
  const now = new Date();
  const paint = paintFor(ctx.io.stdout, ctx.io.env);
  const text =
    what === "status"
      ? ctx.json
        ? statusJson(state, now)
        : statusText(state, now, paint)
      : ctx.json
        ? listJson(state)
        : listText(state, paint);
  ctx.io.stdout.write(text);
}
