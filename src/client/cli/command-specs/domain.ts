import { UsageError } from "../../errors.js";
import { commandContext, defineCommand } from "../command.js";
import { tooMany } from "../usage-errors.js";

/** `deploy domain <hostname> | --check | --reset`: the project's own hostname. */
export const domainSpec = defineCommand({
  name: "domain",
  flags: [
    { name: "reset", takesValue: false },
    { name: "check", takesValue: false },
  ],
  usage: [
    ["deploy domain <hostname> [--dir DIR]", "Serve the project at a hostname of your own"],
    ["deploy domain --check [--dir DIR]", "Ask DNS now whether the hostname points here"],
    ["deploy domain --reset [--dir DIR]", "Go back to the generated hostname"],
  ],
  help: `Usage: deploy domain <hostname> [--dir DIR] [--api-url URL] [--json]
       deploy domain --check [--dir DIR] [--api-url URL] [--json]
       deploy domain --reset [--dir DIR] [--api-url URL] [--json]

Serves the project of DIR (default: the current folder) at <hostname>; its generated hostname
keeps serving too. A name under the service's domain is active at once. A hostname of your own is
pending until DNS shows a CNAME record for it at the printed target, or the printed TXT record
_deploy-challenge.<hostname> (which also takes the name over from a project that claimed it
first); then it gets HTTPS. The server checks DNS now and then; --check asks it at once.
--reset goes back to the generated hostname alone.
With --json, prints the server's answer: { domain, project } (or { project } with --reset).
`,
  parse: ({ name, flags, positionals, common }) => {
    tooMany(positionals, 1, name, "domain takes one hostname");
    const hostname = positionals[0];
    const reset = flags.has("reset");
    const check = flags.has("check");
    if ([reset, check, hostname !== undefined].filter(Boolean).length > 1) {
      throw new UsageError(`give a hostname, --reset or --check, one of them`, "Run `deploy domain --help`.");
    }
    if (!reset && !check && hostname === undefined) {
      throw new UsageError(
        "missing hostname",
        "Usage: deploy domain <hostname> | deploy domain --check | deploy domain --reset",
      );
    }
    return { kind: name, hostname, reset, check, common };
  },
  run: async (args, io) => {
    const { domainCommand } = await import("../commands/domain.js");
    const ctx = await commandContext(io, args.common);
    return domainCommand(ctx, args.common.dir, args.check ? "check" : args.hostname);
  },
});
