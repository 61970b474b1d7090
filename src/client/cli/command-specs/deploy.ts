import { deployMessageProblem, previewAliasProblem } from "../../../core/formats.js";
import { UsageError } from "../../errors.js";
import { formatBytes, formatCount } from "../../format.js";
import { DEFAULTS as D } from "../../settings.js";
import { commandContext, defineCommand } from "../command.js";
import { helpHint, tooMany } from "../usage-errors.js";

/** `deploy [dir]`, the default command: deploys a folder. */
export const deploySpec = defineCommand({
  name: "deploy",
  flags: [
    { name: "preview", takesValue: false },
    { name: "include-dotfiles", takesValue: false },
    // Production is the default here; --prod (netlify, vercel) is accepted and says so.
    { name: "prod", takesValue: false },
    { name: "message", alias: "m", takesValue: true },
    { name: "alias", takesValue: true },
    // Confirms deploying a folder that looks like a project's source (deploy/source-guard.ts).
    { name: "yes", alias: "y", takesValue: false },
  ],
  usage: [
    ["deploy [dir]", "Deploy a folder (default: the current one) to production"],
    [
      "deploy --preview [dir]",
      "Deploy it to its revision URL only; production is unchanged",
      "(production is the default: --prod is accepted, not needed)",
    ],
    [
      "deploy --alias NAME [dir]",
      "A preview also served at NAME--<project>, which moves to",
      "each deploy with --alias NAME (a stable preview URL)",
    ],
    ['deploy -m "text" [dir]', "Store a message with the revision (list and status show it)"],
    ["deploy --yes [dir]", "Deploy a folder that looks like a project's source, unasked"],
  ],
  help: `Usage: deploy [dir] [--preview | --prod] [--alias NAME] [-m, --message TEXT]
              [--include-dotfiles] [--yes] [--api-url URL] [--json]

Deploys the folder (default: the current one; --dir DIR works too). Prints the production URL,
the revision URL (this exact version, kept while the project keeps the revision), the number of
files, how many were uploaded, how many were identical to another file of the site, how many the
service already held, the bytes sent and the time.

--preview publishes the revision on its revision URL only: production stays as it was, until
\`deploy promote <revision>\`. --include-dotfiles deploys dotfiles and dot-folders too.

Production is the default, the opposite of netlify-cli and vercel: \`deploy\` publishes to
production, \`deploy --preview\` does not. --prod is accepted (it changes nothing, and says so).

--message TEXT (-m) stores TEXT with the revision (one line, at most 500 characters); \`deploy
list\` and \`deploy status\` show it. A deploy with a message always makes a new revision.

--alias NAME deploys a preview and also serves it at NAME--<project>.<domain> (like netlify's
--alias and wrangler's --branch): a URL that stays the same and moves to each deploy with that
alias. NAME is 1 to 20 of a-z, 0-9 and - (not 10 letters and digits: that is a revision id);
a project keeps at most 20 aliases.

A folder that looks like a project's source (a package.json, a .git, or no index.html while
dist/, build/, out/, public/ or _site/ has one) is deployed only once confirmed: on a terminal the
client asks; elsewhere it stops with SOURCE_FOLDER and the likely output folder, and --yes (-y)
confirms. A yes is remembered in the folder's project file.

With --json, prints one object on stdout:
  { projectSlug, revisionId, productionUrl, revisionUrl, expiresAt, preview, files, uploaded,
    identical, bytesUploaded, durationMs }
(and message, alias and aliasUrl when given; domainPending: true while the custom domain waits
for DNS, when productionUrl does not answer yet)
(bytesUploaded counts the raw bytes of the files uploaded, before base64; skippedDotfiles and
skippedGitignored list what was skipped as a dotfile or for a .gitignore, when anything was;
expiresAt is null on a server where projects never expire.)

On a terminal, one line on stderr shows the phase that runs (listing, asking the server's limits,
creating the project, preparing, hashing, uploading, publishing) and how long it has taken; for
hashing and uploading, the files and bytes done, then the rate and an ETA once a second of bytes
has given a rate. Uploaded files count as their parts are written to the connection; the server
confirms a request of many files at once, so the line then says it is storing the last ones.

A site expires when it has not been deployed for the server's PROJECT_TTL_SECONDS (30 days by
default): the summary prints the date. Any deploy of the folder, even with no change, moves it.

Before anything is uploaded the client checks that the folder holds at most DEPLOY_MAX_FILES
files (${formatCount(D.maxFiles)}) and none larger than DEPLOY_MAX_FILE_BYTES (${formatBytes(D.maxFileBytes)}), and names the files that do not fit.
Then, before it creates a project, it asks the server for its own limits (GET /limits: files,
bytes per file, the size of the file list, storage quotas) and refuses what the server would.
If the project has expired or was deleted, a new project is created and the new URL is printed
(not with DEPLOY_CREDENTIAL, whose project it is).

Run \`deploy --help\` for the other commands and the environment variables.
`,
  parse: ({ name, flags, positionals, common }) => {
    tooMany(positionals, 1, name, "deploy takes one folder");
    const positional = positionals[0];
    const dirOption = flags.get("dir");
    if (positional !== undefined && typeof dirOption === "string") {
      throw new UsageError(`give the folder once: "${positional}" and --dir "${dirOption}"`);
    }
    return {
      kind: name,
      common: { ...common, dir: positional ?? common.dir },
      preview: flags.has("preview"),
      includeDotfiles: flags.has("include-dotfiles"),
      // --yes: deploy a folder that looks like a project's source without asking.
      yes: flags.has("yes"),
      // The folder as typed as a word, when it was: a mistyped command looks like one.
      positional,
      ...deployExtras(flags),
    };
  },
  run: async (args, io) => {
    const { deployCommand } = await import("../commands/deploy.js");
    return deployCommand(await commandContext(io, args.common), args.common.dir, {
      preview: args.preview || args.alias !== undefined,
      includeDotfiles: args.includeDotfiles,
      prod: args.prod,
      message: args.message,
      alias: args.alias,
      yes: args.yes,
    });
  },
});

/** Deploy's options beyond the folder: --prod, --message (stored with the revision) and --alias, checked. */
function deployExtras(flags: Map<string, string | true>): { prod?: true; message?: string; alias?: string } {
  const prod = flags.has("prod");
  const message = flags.get("message");
  const alias = flags.get("alias");
  if (prod && flags.has("preview")) {
    throw new UsageError(
      "give --prod or --preview, not both",
      "Production is the default: `deploy` deploys to production, `deploy --preview` does not.",
    );
  }
  if (typeof message === "string") {
    const problem = deployMessageProblem(message);
    if (problem !== undefined) throw new UsageError(`--message: ${problem}`, helpHint("deploy"));
  }
  if (typeof alias === "string") {
    const problem = previewAliasProblem(alias);
    if (problem !== undefined) throw new UsageError(`--alias "${alias}": ${problem}`, helpHint("deploy"));
    if (prod) {
      throw new UsageError(
        "give --prod or --alias, not both",
        "An alias is a preview: `deploy --alias NAME` leaves production where it is.",
      );
    }
  }
  return {
    ...(prod && { prod: true as const }),
    ...(typeof message === "string" && { message }),
    ...(typeof alias === "string" && { alias }),
  };
}
