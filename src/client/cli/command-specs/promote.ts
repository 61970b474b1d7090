import { UsageError } from "../../errors.js";
import { commandContext, defineCommand } from "../command.js";
import { checkRevisionId, tooMany } from "../usage-errors.js";

/** `deploy promote <revision>`: a kept revision becomes production. */
export const promoteSpec = defineCommand({
  name: "promote",
  flags: [],
  usage: [["deploy promote <revision>", "Make a kept revision (a preview, say) the production one"]],
  help: `Usage: deploy promote <revision> [--dir DIR] [--api-url URL] [--json]

Makes a kept revision (a preview, or an older one) the production revision, at once.
Promoting the revision already live changes nothing. With --json: { revisionId,
previousRevisionId, productionUrl, revisionUrl, project }.
`,
  parse: ({ name, positionals, common }) => {
    tooMany(positionals, 1, name, "promote takes one revision id");
    const revisionId = positionals[0];
    if (revisionId === undefined) {
      throw new UsageError(
        "missing revision id",
        "Usage: deploy promote <revision>; `deploy list` shows them.",
      );
    }
    checkRevisionId(revisionId, name);
    return { kind: name, revisionId, common };
  },
  run: async (args, io) => {
    const { promoteCommand } = await import("../commands/promote.js");
    const ctx = await commandContext(io, args.common);
    return promoteCommand(ctx, args.common.dir, args.revisionId, "promote");
  },
});
