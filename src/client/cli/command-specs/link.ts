import { UsageError } from "../../errors.js";
import { commandContext, defineCommand } from "../command.js";
import { tooMany } from "../usage-errors.js";

/** `deploy link <project>`: the folder deploys to a project this machine holds. */
export const linkSpec = defineCommand({
  name: "link",
  flags: [],
  usage: [["deploy link <project> [--dir DIR]", "Make the folder deploy to a project this machine holds"]],
  help: `Usage: deploy link <project> [--dir DIR] [--api-url URL] [--json]

Makes DIR (default: the current folder) deploy to <project>, one this machine holds the token of
(\`deploy projects\` lists them; the server is asked first that it answers), by writing the
folder's project file, .static-deploy.json (in the folder, or in its repository's root). The
token stays in the config folder. With --json: { projectSlug, productionUrl, dir, projectFile }.
`,
  parse: ({ name, positionals, common }) => {
    tooMany(positionals, 1, name, "link takes one project name; name the folder with --dir");
    const projectSlug = positionals[0];
    if (projectSlug === undefined) {
      throw new UsageError(
        "missing project name",
        "Usage: deploy link <project>; `deploy projects` lists them.",
      );
    }
    return { kind: name, projectSlug, common };
  },
  run: async (args, io) => {
    const { linkCommand } = await import("../commands/link.js");
    return linkCommand(await commandContext(io, args.common), args.common.dir, args.projectSlug);
  },
});
