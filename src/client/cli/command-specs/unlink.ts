import { commandContext, defineCommand } from "../command.js";
import { tooMany } from "../usage-errors.js";

/** `deploy unlink`: the folder forgets its project (the token is kept). */
export const unlinkSpec = defineCommand({
  name: "unlink",
  flags: [],
  usage: [["deploy unlink [--dir DIR]", "Detach the folder from its project (the token is kept)"]],
  help: `Usage: deploy unlink [--dir DIR] [--api-url URL] [--json]

Detaches DIR from its project: removes the project file that names it, and the folder's path
from the project's record. The token is kept (\`deploy link\` attaches it again); the folder's
next deploy creates a new project. With --json: { projectSlug, dir, unlinked }.
`,
  parse: ({ name, positionals, common }) => {
    tooMany(positionals, 0, name, `${name} takes no argument`);
    return { kind: name, common };
  },
  run: async (args, io) => {
    const { unlinkCommand } = await import("../commands/link.js");
    return unlinkCommand(await commandContext(io, args.common), args.common.dir);
  },
});
