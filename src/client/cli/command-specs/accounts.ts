import { defineCommand } from "../command.js";
import { tooMany } from "../usage-errors.js";

/**
 * `deploy login`, `logout` and `whoami`, habits from netlify-cli, vercel, wrangler and surge:
 * they say that there are no accounts here, and what identifies a project instead.
 */
export const accountsSpec = defineCommand({
  name: "login",
  aliases: ["logout", "whoami"],
  flags: [],
  usage: [["deploy login | logout | whoami", "There are no accounts: these say what identifies a project"]],
  help: `Usage: deploy login | deploy logout | deploy whoami

There are no accounts here. A project is its folder: the first \`deploy <dir>\` creates it, and
this machine keeps its token in the config folder. On another machine or in CI, set
DEPLOY_CREDENTIAL to what \`deploy credential --dir <dir>\` prints. These commands say so and exit
0; with --json: { accounts: false, message }.
`,
  parse: ({ name, positionals, common }) => {
    tooMany(positionals, 0, name, `${name} takes no argument`);
    return { kind: name, common };
  },
  run: async (args, io) => {
    const { accountsAnswer } = await import("../commands/accounts.js");
    io.stdout.write(accountsAnswer(args.kind, args.common.json));
  },
});
