import { beforeEach, describe, expect, it } from "vitest";
import { apiError } from "../cli/commands/test-api.js";
import { openFolder, type CommandContext, type FolderProject } from "../context.js";
import { ApiError, CliError } from "../errors.js";
import { projectHashOf } from "../local/identity.js";
import { SavedProjects, type SavedProject } from "../local/saved-projects.js";
import type { Manifest } from "../net/api-types.js";
import { prepareProject } from "./prepare-project.js";
import {
  preparedDeploy,
  publicProject,
  savedProjectOf,
  scriptCreate,
  shownLines,
  useDeployKit,
} from "./test-deploy-kit.js";

const kit = useDeployKit();
/** The test's own site folder: a folder's saved project is found by its path. */
let dir: string;
let sites = 0;

beforeEach(async () => {
  kit.api.reset();
  dir = await kit.site(`site-${++sites}`, { "index.html": "<p>home</p>" });
});

/** A manifest of two files under the project's slug, naming the slug it was made for. */
const twoFiles = (project: SavedProject): Manifest => ({
  [`/${project.projectSlug}/index.html`]: { hash: "a".repeat(64), size: 1 },
  [`/${project.projectSlug}/about.html`]: { hash: "b".repeat(64), size: 1 },
});

/** Saves project `slug` as the site folder's, as an earlier deploy from it would have. */
async function saveProject(slug: string): Promise<SavedProject> {
  const project = savedProjectOf(kit, slug, dir);
  await new SavedProjects(kit.configDir).put(projectHashOf(dir), project);
  return project;
}

const held = (slug: string) => new SavedProjects(kit.configDir).findBySlug(kit.api.url, slug);

async function opened(ctx: CommandContext): Promise<FolderProject> {
  return openFolder(ctx, dir, { lock: false });
}

/** Answers every prepare of `slug` with deploy `deployId`. */
function scriptPrepare(slug: string, deployId: string): void {
  kit.api.on(`POST /projects/${slug}/prepare`, { status: 200, body: preparedDeploy(kit.api, deployId, []) });
}

describe("prepareProject", () => {
  it("prepareProject: a folder without a project creates one, keeps its token, and prepares on it", async () => {
    const { ctx, stderr } = kit.context();
    const folder = await opened(ctx);
    scriptCreate(kit.api, "p-new");
    scriptPrepare("p-new", "d1");
    const result = await prepareProject(ctx, folder, twoFiles, false);
    const project = {
      projectSlug: "p-new",
      apiToken: "token-p-new",
      apiUrl: kit.api.url,
      dir: folder.realDir,
      productionUrl: "http://p-new.sites.test/",
      createdAt: publicProject("p-new").createdAt,
    };
    expect(result).toEqual({
      project,
      prepared: preparedDeploy(kit.api, "d1", []),
      previousProjectSlug: undefined,
    });
    expect((await held("p-new"))?.project).toEqual(project);
    const [create, prepare] = kit.api.received;
    expect(create?.path).toBe("/projects");
    expect(prepare?.path).toBe("/projects/p-new/prepare");
    expect(prepare?.headers.authorization).toBe("Bearer token-p-new");
    expect(prepare?.body).toEqual({ ...folder.api.identityFields, manifest: twoFiles(project) });
    expect(shownLines(stderr())).toEqual([
      "Creating the project… 0ms",
      `Created project p-new for ${folder.realDir}`,
      "Preparing the deploy (2 files)… 0ms",
    ]);
  });

  it("prepareProject: the new project's token is kept even when its first prepare fails", async () => {
    const { ctx } = kit.context();
    const folder = await opened(ctx);
    scriptCreate(kit.api, "p-kept");
    kit.api.on("POST /projects/p-kept/prepare", apiError(400, "INVALID_MANIFEST"));
    await expect(prepareProject(ctx, folder, twoFiles, false)).rejects.toMatchObject({
      code: "INVALID_MANIFEST",
    });
    expect((await held("p-kept"))?.project.apiToken).toBe("token-p-kept");
  });

  it("prepareProject: a saved project is prepared on, nothing created; skipUnchanged is asked only when wanted", async () => {
    const saved = await saveProject("p-saved");
    for (const skipUnchanged of [true, false]) {
      kit.api.reset();
      const { ctx, stderr } = kit.context();
      scriptPrepare("p-saved", "d2");
      const result = await prepareProject(ctx, await opened(ctx), twoFiles, skipUnchanged);
      expect(result).toEqual({
        project: saved,
        prepared: preparedDeploy(kit.api, "d2", []),
        previousProjectSlug: undefined,
      });
      expect(kit.api.received).toHaveLength(1);
      const body = kit.api.received[0]?.body as Record<string, unknown>;
      expect(body.manifest).toEqual(twoFiles(saved));
      expect(body.skipUnchanged).toBe(skipUnchanged ? true : undefined);
      expect(shownLines(stderr())).toEqual(["Preparing the deploy (2 files)… 0ms"]);
    }
  });

  it("prepareProject: an expired project is replaced by a new one, its record dropped, the new URL said", async () => {
    await saveProject("p-old");
    const { ctx, stderr } = kit.context();
    const folder = await opened(ctx);
    kit.api.on("POST /projects/p-old/prepare", apiError(410, "PROJECT_EXPIRED"));
    scriptCreate(kit.api, "p-next");
    scriptPrepare("p-next", "d3");
    const result = await prepareProject(ctx, folder, (project) => twoFiles(project), true);
    expect(result.project.projectSlug).toBe("p-next");
    expect(result.prepared).toEqual(preparedDeploy(kit.api, "d3", []));
    expect(result.previousProjectSlug).toBe("p-old");
    expect(await held("p-old")).toBeUndefined();
    expect((await held("p-next"))?.project.dir).toBe(dir);
    expect(kit.api.received.map((request) => request.path)).toEqual([
      "/projects/p-old/prepare",
      "/projects",
      "/projects/p-next/prepare",
    ]);
    expect((kit.api.received[2]?.body as { manifest: Manifest }).manifest).toEqual(twoFiles(result.project));
    expect(stderr()).toContain(
      "\nThe project p-old has expired; created a new project, p-next. " +
        "The site's URL changed: it is now http://p-next.sites.test/\n",
    );
  });

  it("prepareProject: a project not found, or its token refused, no longer exists", async () => {
    for (const [status, code] of [
      [404, "PROJECT_NOT_FOUND"],
      [401, "UNAUTHORIZED"],
    ] as const) {
      kit.api.reset();
      dir = await kit.site(`site-${++sites}`, { "index.html": "<p>home</p>" });
      await saveProject("p-gone");
      const { ctx, stderr } = kit.context();
      kit.api.on("POST /projects/p-gone/prepare", apiError(status, code));
      scriptCreate(kit.api, "p-after");
      scriptPrepare("p-after", "d4");
      const result = await prepareProject(ctx, await opened(ctx), twoFiles, false);
      expect(result.previousProjectSlug).toBe("p-gone");
      expect(stderr()).toContain("The project p-gone no longer exists; created a new project, p-after.");
    }
  });

  it("prepareProject: another refusal is the deploy's error, and no project is made", async () => {
    await saveProject("p-owned");
    const { ctx } = kit.context();
    kit.api.on("POST /projects/p-owned/prepare", apiError(403, "OWNERSHIP_MISMATCH", "not yours"));
    const error = await prepareProject(ctx, await opened(ctx), twoFiles, false).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: "OWNERSHIP_MISMATCH",
      message: expect.stringContaining("not yours"),
    });
    expect(kit.api.received).toHaveLength(1);
    expect((await held("p-owned"))?.project.projectSlug).toBe("p-owned");
  });

  it("prepareProject: under a credential a gone project is PROJECT_GONE, and no other project is made", async () => {
    const credential = {
      apiUrl: kit.api.url,
      projectSlug: "p-cred",
      apiToken: "token-cred",
      projectHash: "c".repeat(64),
      anonFingerprint: "d".repeat(64),
    };
    const { ctx } = kit.context(credential);
    kit.api.on("POST /projects/p-cred/prepare", apiError(410, "PROJECT_EXPIRED"));
    const error = await prepareProject(ctx, await opened(ctx), twoFiles, false).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({
      code: "PROJECT_GONE",
      message:
        "DEPLOY_CREDENTIAL's project p-cred cannot be deployed to: " +
        "could not prepare the deploy: the project has expired",
      hint: "Make a new credential with `deploy credential` where the project was created.",
    });
    expect(kit.api.received.map((request) => request.path)).toEqual(["/projects/p-cred/prepare"]);
  });
});
