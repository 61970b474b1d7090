import { commandContext, defineCommand } from "../command.js";
import { tooMany } from "../usage-errors.js";

/** `deploy list`: the project's kept revisions. */
export const listSpec = defineCommand({
  name: "list",
  flags: [],
  usage: [["deploy list [--dir DIR]", "Its kept revisions, newest first, production marked"]],
  help: `Usage: deploy list [--dir DIR] [--api-url URL] [--json]

Lists the project's kept revisions, newest first: id, when, files, size; the production one is
marked, previews are marked. With --json: { projectSlug, revisions: [{ revisionId, createdAt,
files, bytes, production, preview, revisionUrl, message }] } (message: --message's, or null).
`,
  parse: ({ name, positionals, common }) => {
    tooMany(positionals, 0, name, `${name} takes no argument; name the folder with --dir`);
    return { kind: name, common };
  },
  run: async (args, io) => {
    const { stateCommand } = await import("../commands/state.js");
    return stateCommand(await commandContext(io, args.common), args.common.dir, "list");
  },
});
