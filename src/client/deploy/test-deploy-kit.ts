import { afterAll, beforeAll } from "vitest";
import { mkdir, mkdtemp, realpath, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startTestApi, type ReceivedRequest, type TestApi } from "../cli/commands/test-api.js";
import type { CommandContext } from "../context.js";
import type { Credential } from "../local/credential.js";
import type { CompletedDeploy, Manifest, PreparedDeploy, PublicProject } from "../net/api-types.js";
import { defaultRetryPolicy } from "../net/retry.js";
import { createProgress } from "../progress.js";
import { readSettings } from "../settings.js";
import { publicProject as projectFixture } from "../cli/test-fixtures.js";
import type { SavedProject } from "../local/saved-projects.js";
import type { CliIo } from "../io.js";

// The deploy's unit tests' world (not built: `test-*.ts`): site folders in a temp root, a config
// folder, the scripted API (test-api.ts) that also stands for the upload service at `/upload/…`,
// and a context whose progress draws on a captured terminal, so every step's label is seen.

/** A temp root with a config folder, and the stand-in API every context talks to. */
export interface DeployKit {
  api: TestApi;
  root: string;
  configDir: string;
  /** A folder under the root holding `files` (path → text), all modified an hour ago. */
  site(name: string, files: Record<string, string>): Promise<string>;
  /** A context on the stand-in; `stderr()` is what its progress drew. */
  context(credential?: Credential): { ctx: CommandContext; stderr: () => string };
  close(): Promise<void>;
}

/** The kit for one test file: started before its tests, closed after them. */
export function useDeployKit(): DeployKit {
  const kit = {} as DeployKit;
  beforeAll(async () => {
    Object.assign(kit, await startDeployKit());
  });
  afterAll(() => kit.close());
  return kit;
}

/** Starts the stand-in and makes the temp root. */
export async function startDeployKit(): Promise<DeployKit> {
  const api = await startTestApi();
  const root = await realpath(await mkdtemp(join(tmpdir(), "deploy-kit-")));
  const configDir = join(root, "config");
  return {
    api,
    root,
    configDir,
    async site(name, files) {
      const dir = join(root, name);
      await mkdir(dir, { recursive: true });
      // An hour old: out of every racy window, so the last deploy's record is kept.
      const old = new Date(Date.now() - 3_600_000);
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), text);
        await utimes(join(dir, path), old, old);
      }
      return dir;
    },
    context: (credential) =>
      capturedContext(
        {
          settings: { ...readSettings({}), uploadConcurrency: 1, lockWaitSeconds: 0 },
          apiUrl: api.url,
          credential,
        },
        { env: { DEPLOY_CONFIG_DIR: configDir }, cwd: root },
      ),
    async close() {
      await api.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** What a captured terminal shows, line by line: each redraw of the live line and each note. */
export function shownLines(stderr: string): string[] {
  return stderr
    .split("\r\x1b[2K")
    .flatMap((part) => part.split("\n"))
    .filter((line) => line !== "");
}

/** A project as the API shows it, at `http://<slug>.sites.test/`, none of its revisions live yet. */
export function publicProject(slug: string, fields: Partial<PublicProject> = {}): PublicProject {
  return projectFixture({
    projectSlug: slug,
    productionUrl: `http://${slug}.sites.test/`,
    revisionId: null,
    createdAt: "2026-11-01T00:00:00.000Z",
    expiresAt: "2026-12-01T00:00:00.000Z",
    ...fields,
  });
}

/** POST /projects answers project `slug` with token `token-<slug>`. */
export function scriptCreate(api: TestApi, slug: string): void {
  api.on("POST /projects", {
    status: 201,
    body: { project: publicProject(slug), apiToken: `token-${slug}` },
  });
}

/** The manifest a prepare request carries. */
export const manifestOf = (request: ReceivedRequest): Manifest =>
  (request.body as { manifest: Manifest }).manifest;

/** A prepare answer with these buckets; its uploads go to `/upload/<deployId>` on the stand-in. */
export function preparedDeploy(api: TestApi, deployId: string, buckets: string[][]): PreparedDeploy {
  return {
    deployId,
    accountId: "account",
    revisionId: `rev-${deployId}`,
    uploadJwt: `upload-${deployId}`,
    buckets,
    project: publicProject("unused"),
    urls: { upload: `${api.url}/upload/${deployId}`, production: "", revision: "" },
    expiresAt: "2026-11-28T01:00:00.000Z",
  };
}

/** The upload service at `/upload/<deployId>` takes every bucket and issues `done-<deployId>`. */
export function scriptUploads(api: TestApi, ...deployIds: string[]): void {
  for (const id of deployIds) {
    api.on(`POST /upload/${id}`, {
      status: 200,
      body: { success: true, errors: [], result: { jwt: `done-${id}` } },
    });
  }
}

/** A completed deploy of project `slug` as revision `revisionId`. */
export function completed(
  slug: string,
  revisionId: string,
  fields: Partial<CompletedDeploy> = {},
): CompletedDeploy {
  return {
    revisionId,
    productionUrl: `http://${slug}.sites.test/`,
    revisionUrl: `http://${revisionId}--${slug}.sites.test/`,
    project: publicProject(slug),
    ...fields,
  };
}

/** The hashes the upload service was sent, in order (the multipart parts' names). */
export function uploadedHashes(api: TestApi): string[] {
  return api.received
    .filter((request) => request.path.startsWith("/upload/"))
    .flatMap((request) => [...String(request.body).matchAll(/ name="([^"]+)"/g)].map((match) => match[1]!));
}

/** The `METHOD /path` of every request the stand-in received, in order. */
export const routesOf = (api: TestApi): string[] =>
  api.received.map((request) => `${request.method} ${request.path}`);

/** A project as a first deploy of `dir` saves it: its token, on the kit's stand-in, at `http://<slug>.sites.test/`. */
export function savedProjectOf(
  kit: DeployKit,
  slug: string,
  dir: string,
  fields: Partial<SavedProject> = {},
): SavedProject {
  return {
    projectSlug: slug,
    apiToken: `token-${slug}`,
    apiUrl: kit.api.url,
    dir,
    productionUrl: `http://${slug}.sites.test/`,
    createdAt: "2026-11-01T00:00:00.000Z",
    ...fields,
  };
}

/**
 * A context whose progress draws on a captured terminal (every status change shows at once), one
 * attempt a request unless `fields` say otherwise; `stderr()` is what it drew.
 */
export function capturedContext(
  fields: Partial<CommandContext> = {},
  where: Pick<CliIo, "env" | "cwd"> = { env: {}, cwd: "/" },
): { ctx: CommandContext; stderr: () => string } {
  let stderr = "";
  const stream = { write: (text: string) => (stderr += text), isTTY: true, columns: 1000 };
  const ctx: CommandContext = {
    io: { stdout: { write: () => true }, stderr: stream, ...where },
    settings: { ...readSettings({}), uploadConcurrency: 1 },
    apiUrl: "http://127.0.0.1:1",
    json: false,
    progress: createProgress(
      stream,
      true,
      () => 0,
      () => () => {},
    ),
    retry: defaultRetryPolicy({ maxAttempts: 1, sleep: async () => {} }),
    credential: undefined,
    ...fields,
  };
  return { ctx, stderr: () => stderr };
}
