import { commandContext, defineCommand } from "../command.js";
import { tooMany } from "../usage-errors.js";

/** `deploy credential`: what another machine (CI) deploys to the project with. */
export const credentialSpec = defineCommand({
  name: "credential",
  flags: [],
  usage: [["deploy credential [--dir DIR]", "Print the credential another machine (CI) deploys with"]],
  help: `Usage: deploy credential [--dir DIR] [--api-url URL] [--json]

Prints one opaque string that holds what another machine needs to deploy to the project of DIR:
the API URL, the project, its token and identity. Keep it secret. Set it as DEPLOY_CREDENTIAL
(a CI secret, say) and \`deploy [dir]\`, status, list, rollback, promote, domain and delete act
on that project from any folder and any config folder; the client never writes it to disk and
never prints it back. With --json: { credential, projectSlug }.
`,
  parse: ({ name, positionals, common }) => {
    tooMany(positionals, 0, name, `${name} takes no argument; name the folder with --dir`);
    return { kind: name, common };
  },
  run: async (args, io) => {
    const { credentialCommand } = await import("../commands/credential.js");
    return credentialCommand(await commandContext(io, args.common), args.common.dir);
  },
});
