import { commandContext, defineCommand } from "../command.js";
import { tooMany } from "../usage-errors.js";

/** `deploy projects`: the projects this machine holds tokens for. */
export const projectsSpec = defineCommand({
  name: "projects",
  flags: [],
  usage: [["deploy projects", "The projects this machine holds tokens for: URL, expiry"]],
  help: `Usage: deploy projects [--api-url URL] [--json]

Lists the projects this machine holds tokens for on the API: each one's production URL, its
expiry as the server tells it now ("gone" when the server no longer has it) and the folder it is
linked to here. With --json: { apiUrl, projects: [{ projectSlug, productionUrl, expiresAt,
expired, status, dir }], otherApis } (otherApis: how many are held for other API URLs).
`,
  parse: ({ name, positionals, common }) => {
    tooMany(positionals, 0, name, `${name} takes no argument`);
    return { kind: name, common };
  },
  run: async (args, io) => {
    const { projectsCommand } = await import("../commands/projects.js");
    return projectsCommand(await commandContext(io, args.common));
  },
});
