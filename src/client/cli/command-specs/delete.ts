import { commandContext, defineCommand } from "../command.js";
import { tooMany } from "../usage-errors.js";

/** `deploy delete`: the project and its site go, once confirmed. */
export const deleteSpec = defineCommand({
  name: "delete",
  flags: [{ name: "yes", alias: "y", takesValue: false }],
  usage: [["deploy delete [--dir DIR] [--yes]", "Delete the project and take the site down"]],
  help: `Usage: deploy delete [--dir DIR] [--yes] [--api-url URL] [--json]

Deletes the project of DIR (default: the current folder): its site stops answering at once and
its hostnames are freed. Asks for confirmation on a terminal; pass --yes (-y) to skip the question
(required when not on a terminal). Answering no changes nothing and exits 0. With --json,
prints { projectSlug, deleted } (deleted false when the question was answered no).
`,
  parse: ({ name, flags, positionals, common }) => {
    tooMany(positionals, 0, name, "delete takes no argument; name the folder with --dir");
    return { kind: name, yes: flags.has("yes"), common };
  },
  run: async (args, io) => {
    const { deleteCommand } = await import("../commands/delete.js");
    return deleteCommand(await commandContext(io, args.common), args.common.dir, args.yes);
  },
});
