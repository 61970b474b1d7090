import { commandContext, defineCommand } from "../command.js";
import { tooMany } from "../usage-errors.js";

/** `deploy status`: the project of a folder, as the server tells it now. */
export const statusSpec = defineCommand({
  name: "status",
  flags: [],
  usage: [["deploy status [--dir DIR]", "The project: production URL, revision, domain, expiry"]],
  help: `Usage: deploy status [--dir DIR] [--api-url URL] [--json]

Shows the project of DIR (or of DEPLOY_CREDENTIAL): its production URL, the revision it serves,
its domain, how many revisions it keeps and when it expires (by default 30 days after its last
deploy; never on a server with PROJECT_TTL_SECONDS=0). Production is the URL that serves now:
while a custom domain waits for DNS it is the generated one, and the domain is marked pending.
With --json: { projectSlug, productionUrl, revisionId, revisionUrl, hostname, customHostname,
createdAt, expiresAt, expired, revisions } (and customHostnameStatus: "pending" while it is;
message: the production revision's, when it has one).
`,
  parse: ({ name, positionals, common }) => {
    tooMany(positionals, 0, name, `${name} takes no argument; name the folder with --dir`);
    return { kind: name, common };
  },
  run: async (args, io) => {
    const { stateCommand } = await import("../commands/state.js");
    return stateCommand(await commandContext(io, args.common), args.common.dir, "status");
  },
});
