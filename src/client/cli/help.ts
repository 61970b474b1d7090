import type { CommandName } from "./args.js";

const MAIN = `deploy — publish a folder of static files and get a production URL and a revision URL.

Usage
  deploy [dir]                       Deploy a folder (default: the current one)
  deploy domain <hostname> [--dir DIR]
                                     Serve the project at a hostname of your own
  deploy domain --reset [--dir DIR]  Go back to the generated hostname
  deploy delete [--dir DIR] [--yes]  Delete the project and take the site down
  deploy help [command]              Show help for a command

Options (every command)
  --api-url URL   Deploy API to talk to (env DEPLOY_API_URL, default http://127.0.0.1:8787)
  --json          Print one JSON object on stdout instead of text
  -h, --help      Show help
  -v, --version   Print the client's version

The first deploy of a folder creates a project; later deploys of the same folder (same real path)
update it, and only files whose contents changed are uploaded. The project's token is kept in
your config folder, never in the deployed folder.

Skipped when deploying: .git, node_modules, .DS_Store, and what the folder's .deployignore names
(gitignore syntax). Symbolic links are followed when they stay inside the folder and refused when
they point outside it.

Environment
  DEPLOY_API_URL            Deploy API base URL
  DEPLOY_CONFIG_DIR         Config folder (default $XDG_CONFIG_HOME/static-deploy,
                            else ~/.config/static-deploy)
  DEPLOY_MAX_FILES          Most files a deploy may hold (default 100000)
  DEPLOY_MAX_FILE_BYTES     Largest file in bytes (default 26214400, 25 MiB)
  DEPLOY_UPLOAD_CONCURRENCY Buckets uploaded at once (default 3)
  DEPLOY_HASH_THREADS       Hashing threads; 0 hashes on the main thread (default: one per core, at most 8)
  DEPLOY_HASH_THREAD_MIN_FILES
                            Fewest files to hash that start the threads (default 2000; 64 MiB also does)
  DEPLOY_RETRY_BASE_MS      First retry delay in ms, doubled each try up to 30 s (default 500)
  DEPLOY_MAX_ATTEMPTS       Tries per request on network errors, 5xx and 429 (default 6)
  DEBUG=1                   Print stack traces on errors

Exit status: 0 success, 1 failure, 2 usage error.

Examples
  deploy ./dist
  deploy ./dist --json | jq -r .productionUrl
  deploy domain www.example.com --dir ./dist
  deploy delete --dir ./dist --yes
`;

const DEPLOY = `Usage: deploy [dir] [--api-url URL] [--json]

Deploys the folder (default: the current one; --dir DIR works too). Prints the production URL,
the revision URL (this exact version, kept while the project lives), the number of files,
how many were uploaded and how many the service already held, the bytes sent and the time.

With --json, prints one object on stdout:
  { projectSlug, revisionId, productionUrl, revisionUrl, files, uploaded, bytesUploaded, durationMs }
(bytesUploaded counts the raw bytes of the files uploaded, before base64.)

Before anything is uploaded the client checks that the folder holds at most DEPLOY_MAX_FILES
files (100000) and none larger than DEPLOY_MAX_FILE_BYTES (25 MiB), and names the files that do not fit.
If the project has expired or was deleted, a new project is created and the new URL is printed.

Run \`deploy --help\` for the other commands and the environment variables.
`;

const DOMAIN = `Usage: deploy domain <hostname> [--dir DIR] [--api-url URL] [--json]
       deploy domain --reset [--dir DIR] [--api-url URL] [--json]

Serves the project of DIR (default: the current folder) at <hostname> instead of its generated
hostname. For a hostname outside the service's domain, point a DNS CNAME record at the target
that is printed. --reset goes back to the generated hostname.
With --json, prints the server's answer: { domain, project } (or { project } with --reset).
`;

const DELETE = `Usage: deploy delete [--dir DIR] [--yes] [--api-url URL] [--json]

Deletes the project of DIR (default: the current folder): its site stops answering at once and
its hostnames are freed. Asks for confirmation on a terminal; pass --yes (-y) to skip the question
(required when not on a terminal). With --json, prints { projectSlug, deleted }.
`;

const TOPICS: Record<CommandName, string> = { deploy: DEPLOY, domain: DOMAIN, delete: DELETE };

/** The help text of a command, or the main help. */
export function helpText(topic: CommandName | undefined): string {
  return topic === undefined ? MAIN : TOPICS[topic];
}
