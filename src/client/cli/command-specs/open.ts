import { commandContext, defineCommand } from "../command.js";
import { tooMany } from "../usage-errors.js";

/** `deploy open`: the production URL (or the newest preview) in a browser, as netlify and vercel do. */
export const openSpec = defineCommand({
  name: "open",
  flags: [{ name: "preview", takesValue: false }],
  usage: [["deploy open [--preview]", "Open the production URL (or the newest preview) in a browser"]],
  help: `Usage: deploy open [--preview] [--dir DIR] [--api-url URL] [--json]

Opens the project's production URL in the browser (the generated one while a custom domain is
pending), or with --preview the newest preview's revision URL. The opener is $BROWSER when set
(BROWSER=none opens nothing), else \`open\` on macOS, \`start\` on Windows, \`xdg-open\` elsewhere;
without one that works, the URL is printed. With --json nothing is opened:
{ projectSlug, url, preview, opened: false }.
`,
  parse: ({ name, flags, positionals, common }) => {
    tooMany(positionals, 0, name, "open takes no argument; name the folder with --dir");
    return { kind: name, preview: flags.has("preview"), common };
  },
  run: async (args, io) => {
    const { openCommand } = await import("../commands/open.js");
    return openCommand(await commandContext(io, args.common), args.common.dir, args.preview);
  },
});
