import type { HelpTopic } from "./commands-list.js";
import { formatBytes, formatCount } from "../format.js";
import { DEFAULT_API_URL, DEFAULTS } from "../settings.js";
import { HABIT_TOPICS } from "./help-habits.js";

// Every number below comes from the code's own defaults (settings.ts), never typed twice.
const D = DEFAULTS;

/** The client's own error codes; the API's (PROJECT_EXPIRED, …) pass through as they are. */
export const CLIENT_ERROR_CODES = [
  "USAGE",
  "NO_FOLDER",
  "NOT_A_FOLDER",
  "EMPTY_SITE",
  "TOO_MANY_FILES",
  "FILE_TOO_LARGE",
  "MANIFEST_TOO_LARGE",
  "QUOTA_EXCEEDED",
  "BAD_FILE_NAME",
  "BAD_SYMLINK",
  "IGNORE_FILE",
  "READ_FAILED",
  "FILE_CHANGED",
  "NO_PROJECT",
  "PROJECT_GONE",
  "NO_PREVIOUS_REVISION",
  "NO_PREVIEW",
  "CREDENTIAL_INVALID",
  "CREDENTIAL_IN_USE",
  "LOCKED",
  "CONFIG",
  "CONFIG_INVALID",
  "CONFIG_INSIDE",
  "CANCELLED",
  "SOURCE_FOLDER",
  "PROJECT_FILE",
  "PROJECT_NOT_HELD",
  "LINKED_ELSEWHERE",
  "NETWORK",
  "BAD_RESPONSE",
  "UPLOAD_INCOMPLETE",
  "INTERNAL",
] as const;

const MAIN = `deploy — publish a folder of static files and get a production URL and a revision URL.

Usage
  deploy [dir]                       Deploy a folder (default: the current one) to production
  deploy --preview [dir]             Deploy it to its revision URL only; production is unchanged
                                     (production is the default: --prod is accepted, not needed)
  deploy --alias NAME [dir]          A preview also served at NAME--<project>, which moves to
                                     each deploy with --alias NAME (a stable preview URL)
  deploy -m "text" [dir]             Store a message with the revision (list and status show it)
  deploy --yes [dir]                 Deploy a folder that looks like a project's source, unasked
  deploy status [--dir DIR]          The project: production URL, revision, domain, expiry
  deploy list [--dir DIR]            Its kept revisions, newest first, production marked
  deploy rollback [revision]         Put the revision before the current one (or the one named) back
  deploy promote <revision>          Make a kept revision (a preview, say) the production one
  deploy credential [--dir DIR]      Print the credential another machine (CI) deploys with
  deploy domain <hostname> [--dir DIR]
                                     Serve the project at a hostname of your own
  deploy domain --check [--dir DIR]  Ask DNS now whether the hostname points here
  deploy domain --reset [--dir DIR]  Go back to the generated hostname
  deploy delete [--dir DIR] [--yes]  Delete the project and take the site down
  deploy open [--preview]            Open the production URL (or the newest preview) in a browser
  deploy completion bash|zsh|fish    Print a shell completion script
  deploy login | logout | whoami     There are no accounts: these say what identifies a project
  deploy link <project> [--dir DIR]  Make the folder deploy to a project this machine holds
  deploy unlink [--dir DIR]          Detach the folder from its project (the token is kept)
  deploy projects                    The projects this machine holds tokens for: URL, expiry
  deploy help [command]              Show help for a command

Options (every command)
  --dir DIR       The site folder whose project to act on (default: the current one)
  --api-url URL   Deploy API to talk to (env DEPLOY_API_URL, default ${DEFAULT_API_URL})
  --json          Print one JSON object on stdout instead of text; a failure prints
                  { "error": { "code", "message" } } there and keeps its exit status
  -h, --help      Show help
  -v, --version   Print the client's version (with --json: { "version" })

Options (deploy)
  --preview           Publish to the revision URL only; production is unchanged
  --include-dotfiles  Deploy dotfiles and dot-folders too (.well-known/ always goes)

The first deploy of a folder creates a project and writes a project file, .static-deploy.json,
that names it (no secret: commit it): in the folder, or, when the folder is inside a git
repository, in the repository's root (it then names the folder, as "dir": "dist"). Later deploys
of the folder update that project wherever the folder is moved or cloned, and only files whose
contents changed are uploaded. The project's token is kept in your config folder, never in the
deployed folder: on another machine, deploy with DEPLOY_CREDENTIAL (\`deploy credential\`).
Folders deployed before project files existed keep their project (found by their path) and get
the file on their next deploy. One run at a time acts on a folder: another waits for it (at
most DEPLOY_LOCK_WAIT_SECONDS).

Deploy the folder your build writes (dist/, build/, out/, public/, _site/), not your project's
root: a folder with a package.json or a .git, or without an index.html while one of those has
one, is deployed only once confirmed (a question on a terminal, --yes elsewhere); the message
names the likely output folder.

Skipped when deploying: .git, node_modules and .DS_Store; other dotfiles and dot-folders (.env,
.cache/, …) except .well-known/, named in one line (--include-dotfiles, or a ! rule in
.deployignore, deploys them); what a .gitignore ignores (the folder's own, those of its
subfolders, and those of the folders above it in the same git repository, but for their lines
that ignore the deployed folder itself, as a dist/ line does), named in one line (a ! rule in
.deployignore deploys one; a file in an ignored folder needs the folder brought back too); and
what the folder's .deployignore names (gitignore syntax). Symbolic links are followed when they
stay inside the folder and refused when they point outside it.

A _redirects and a _headers at the folder's root (Netlify's and Cloudflare Pages' syntax; the
README's "Site configuration") are checked before anything is uploaded: a line that does not
parse stops the deploy with its file and line, and nothing is created.

Environment
  DEPLOY_API_URL            Deploy API base URL
  DEPLOY_CREDENTIAL         A credential from \`deploy credential\`: every command acts on its
                            project, from any folder; it is never written to disk nor printed
  DEPLOY_CONFIG_DIR         Config folder (default $XDG_CONFIG_HOME/static-deploy,
                            else ~/.config/static-deploy)
  DEPLOY_MAX_FILES          Most files a deploy may hold (default ${D.maxFiles})
  DEPLOY_MAX_FILE_BYTES     Largest file in bytes (default ${D.maxFileBytes}, ${formatBytes(D.maxFileBytes)})
  DEPLOY_UPLOAD_CONCURRENCY Buckets uploaded at once (default ${D.uploadConcurrency})
  DEPLOY_HASH_THREADS       Hashing threads; 0 hashes on the main thread (default: one per core, at most ${D.maxHashThreads})
  DEPLOY_HASH_THREAD_MIN_FILES
                            Fewest files to hash that start the threads (default ${D.hashThreadMinFiles}; 64 MiB also does)
  DEPLOY_RETRY_BASE_MS      First retry delay in ms, doubled each try up to 30 s (default ${D.retryBaseMs})
  DEPLOY_MAX_ATTEMPTS       Tries per request on network errors, 5xx and 429 (default ${D.maxAttempts};
                            at most ${D.maxRefusedAttempts} when the connection is refused)
  DEPLOY_LOCK_WAIT_SECONDS  How long to wait for another run on the same folder (default ${D.lockWaitSeconds})
  NO_COLOR                  Set (not empty): no colour, even on a terminal (never off one)
  BROWSER                   What \`deploy open\` opens URLs with (none: print them only)
  DEBUG=1                   On errors, print the request's URL, the server's status and code,
                            and the stack trace

Exit status: 0 success, 1 failure, 2 usage error.
Error codes (in --json's error.code): ${CLIENT_ERROR_CODES.join(", ")};
and the API's own codes (PROJECT_EXPIRED, REVISION_NOT_FOUND, RATE_LIMITED, …) as it sent them.

Examples
  deploy ./dist
  deploy ./dist --json | jq -r .productionUrl
  deploy --preview ./dist
  deploy --alias staging -m "new checkout" ./dist
  deploy rollback --dir ./dist
  deploy credential --dir ./dist         then, in CI: DEPLOY_CREDENTIAL=… deploy ./dist
  deploy domain www.example.com --dir ./dist
  deploy delete --dir ./dist --yes
`;

const DEPLOY = `Usage: deploy [dir] [--preview | --prod] [--alias NAME] [-m, --message TEXT]
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
`;

const STATUS = `Usage: deploy status [--dir DIR] [--api-url URL] [--json]

Shows the project of DIR (or of DEPLOY_CREDENTIAL): its production URL, the revision it serves,
its domain, how many revisions it keeps and when it expires (by default 30 days after its last
deploy; never on a server with PROJECT_TTL_SECONDS=0). Production is the URL that serves now:
while a custom domain waits for DNS it is the generated one, and the domain is marked pending.
With --json: { projectSlug, productionUrl, revisionId, revisionUrl, hostname, customHostname,
createdAt, expiresAt, expired, revisions } (and customHostnameStatus: "pending" while it is;
message: the production revision's, when it has one).
`;

const LIST = `Usage: deploy list [--dir DIR] [--api-url URL] [--json]

Lists the project's kept revisions, newest first: id, when, files, size; the production one is
marked, previews are marked. With --json: { projectSlug, revisions: [{ revisionId, createdAt,
files, bytes, production, preview, revisionUrl, message }] } (message: --message's, or null).
`;

const ROLLBACK = `Usage: deploy rollback [revision] [--dir DIR] [--api-url URL] [--json]

Puts production back on the revision before the current one (the next older one that is not a
preview), or on the revision named. The site switches at once; the revision that was live stays
kept, so \`deploy promote\` can put it back. With --json: { revisionId, previousRevisionId,
productionUrl, revisionUrl, project }.
`;

const PROMOTE = `Usage: deploy promote <revision> [--dir DIR] [--api-url URL] [--json]

Makes a kept revision (a preview, or an older one) the production revision, at once.
Promoting the revision already live changes nothing. With --json: { revisionId,
previousRevisionId, productionUrl, revisionUrl, project }.
`;

const CREDENTIAL = `Usage: deploy credential [--dir DIR] [--api-url URL] [--json]

Prints one opaque string that holds what another machine needs to deploy to the project of DIR:
the API URL, the project, its token and identity. Keep it secret. Set it as DEPLOY_CREDENTIAL
(a CI secret, say) and \`deploy [dir]\`, status, list, rollback, promote, domain and delete act
on that project from any folder and any config folder; the client never writes it to disk and
never prints it back. With --json: { credential, projectSlug }.
`;

const DOMAIN = `Usage: deploy domain <hostname> [--dir DIR] [--api-url URL] [--json]
       deploy domain --check [--dir DIR] [--api-url URL] [--json]
       deploy domain --reset [--dir DIR] [--api-url URL] [--json]

Serves the project of DIR (default: the current folder) at <hostname>; its generated hostname
keeps serving too. A name under the service's domain is active at once. A hostname of your own is
pending until DNS shows a CNAME record for it at the printed target, or the printed TXT record
_deploy-challenge.<hostname> (which also takes the name over from a project that claimed it
first); then it gets HTTPS. The server checks DNS now and then; --check asks it at once.
--reset goes back to the generated hostname alone.
With --json, prints the server's answer: { domain, project } (or { project } with --reset).
`;

const DELETE = `Usage: deploy delete [--dir DIR] [--yes] [--api-url URL] [--json]

Deletes the project of DIR (default: the current folder): its site stops answering at once and
its hostnames are freed. Asks for confirmation on a terminal; pass --yes (-y) to skip the question
(required when not on a terminal). Answering no changes nothing and exits 0. With --json,
prints { projectSlug, deleted } (deleted false when the question was answered no).
`;

const LINK = `Usage: deploy link <project> [--dir DIR] [--api-url URL] [--json]

Makes DIR (default: the current folder) deploy to <project>, one this machine holds the token of
(\`deploy projects\` lists them; the server is asked first that it answers), by writing the
folder's project file, .static-deploy.json (in the folder, or in its repository's root). The
token stays in the config folder. With --json: { projectSlug, productionUrl, dir, projectFile }.
`;

const UNLINK = `Usage: deploy unlink [--dir DIR] [--api-url URL] [--json]

Detaches DIR from its project: removes the project file that names it, and the folder's path
from the project's record. The token is kept (\`deploy link\` attaches it again); the folder's
next deploy creates a new project. With --json: { projectSlug, dir, unlinked }.
`;

const PROJECTS = `Usage: deploy projects [--api-url URL] [--json]

Lists the projects this machine holds tokens for on the API: each one's production URL, its
expiry as the server tells it now ("gone" when the server no longer has it) and the folder it is
linked to here. With --json: { apiUrl, projects: [{ projectSlug, productionUrl, expiresAt,
expired, status, dir }], otherApis } (otherApis: how many are held for other API URLs).
`;

const TOPICS: Record<HelpTopic, string> = {
  deploy: DEPLOY,
  status: STATUS,
  list: LIST,
  rollback: ROLLBACK,
  promote: PROMOTE,
  credential: CREDENTIAL,
  domain: DOMAIN,
  delete: DELETE,
  ...HABIT_TOPICS,
  link: LINK,
  unlink: UNLINK,
  projects: PROJECTS,
};

/** The help text of a command, or the main help. */
export function helpText(topic: HelpTopic | undefined): string {
  return topic === undefined ? MAIN : TOPICS[topic];
}
