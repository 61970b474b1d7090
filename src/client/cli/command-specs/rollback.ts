import { commandContext, defineCommand } from "../command.js";
import { checkRevisionId, tooMany } from "../usage-errors.js";

/** `deploy rollback [revision]`: production back on the revision before, or on the one named. */
export const rollbackSpec = defineCommand({
  name: "rollback",
  flags: [],
  usage: [["deploy rollback [revision]", "Put the revision before the current one (or the one named) back"]],
  help: `Usage: deploy rollback [revision] [--dir DIR] [--api-url URL] [--json]

Puts production back on the revision before the current one (the next older one that is not a
preview), or on the revision named. The site switches at once; the revision that was live stays
kept, so \`deploy promote\` can put it back. With --json: { revisionId, previousRevisionId,
productionUrl, revisionUrl, project }.
`,
  parse: ({ name, positionals, common }) => {
    tooMany(positionals, 1, name, "rollback takes one revision id");
    const revisionId = positionals[0];
    if (revisionId !== undefined) checkRevisionId(revisionId, name);
    return { kind: name, revisionId, common };
  },
  run: async (args, io) => {
    const { promoteCommand } = await import("../commands/promote.js");
    const ctx = await commandContext(io, args.common);
    return promoteCommand(ctx, args.common.dir, args.revisionId, "rollback");
  },
});
