import { COMMANDS, commandSpec, type HelpTopic } from "./commands-list.js";
import { formatBytes } from "../format.js";
import { DEFAULT_API_URL, DEFAULTS } from "../settings.js";

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

const INDENT = " ".repeat(37);

const MAIN = `deploy — publish a folder of static files and get a production URL and a revision URL.

Usage
${usageSection()}

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

/** The help text of a command, or the main help. */
export function helpText(topic: HelpTopic | undefined): string {
  return topic === undefined ? MAIN : commandSpec(topic).help;
}

/** The Usage section's lines, from each command's declaration, the help command last. */
function usageSection(): string {
  const lines = COMMANDS.flatMap((spec) => spec.usage);
  return [...lines, ["deploy help [command]", "Show help for a command"] as const]
    .flatMap(([usage, ...description]) => {
      // The description starts at column 37, on the usage's line when the usage leaves room for it.
      const first =
        usage.length <= 33
          ? [`  ${usage.padEnd(35)}${description[0]}`]
          : [`  ${usage}`, `${INDENT}${description[0]}`];
      return [...first, ...description.slice(1).map((line) => `${INDENT}${line}`)];
    })
    .join("\n");
}
