import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { FolderProject } from "../context.js";
import { projectHashOf } from "../local/identity.js";
import type { ApiClient } from "../net/api-client.js";
import { findProjectFile } from "../local/project-file.js";
import { SavedProjects, type SavedProject } from "../local/saved-projects.js";
import { recordLink } from "./record-link.js";
import { savedProjectOf, useDeployKit } from "./test-deploy-kit.js";

const kit = useDeployKit();
let dir: string;
let sites = 0;

beforeEach(async () => {
  dir = await kit.site(`site-${++sites}`, { "index.html": "x" });
});

const projectFile = (site = dir) => join(site, ".static-deploy.json");
const readLink = async (site = dir) =>
  JSON.parse(await readFile(projectFile(site), "utf8")) as Record<string, unknown>;
/** The project file's inode: a rewrite replaces the file. */
const inode = async () => (await stat(projectFile())).ino;

/** Writes the site folder's project file as an earlier run would have. */
async function writeLink(fields: Record<string, unknown>): Promise<void> {
  await writeFile(
    projectFile(),
    JSON.stringify({ project: "p-link", apiUrl: kit.api.url, dir: ".", ...fields }),
  );
}

/** The site folder as a deploy sees it, its project file as found now; recordLink needs no API. */
async function folderOf(): Promise<FolderProject> {
  return {
    realDir: dir,
    projectHash: projectHashOf(dir),
    identityHash: projectHashOf(dir),
    projectFile: await findProjectFile(dir),
    configDir: kit.configDir,
    savedProjects: new SavedProjects(kit.configDir),
    saved: undefined,
    api: undefined as unknown as ApiClient,
    fromCredential: false,
    release: async () => {},
  };
}

const saved = (slug: string, fields: Partial<SavedProject> = {}): SavedProject =>
  savedProjectOf(kit, slug, dir, fields);

describe("recordLink", () => {
  it("recordLink: a folder without a project file gets one naming the project, and is told to commit it", async () => {
    const { ctx, stderr } = kit.context();
    await recordLink(ctx, await folderOf(), "p-link", false);
    expect(await readLink()).toMatchObject({ project: "p-link", apiUrl: kit.api.url, dir: "." });
    expect((await readLink()).publishAsIs).toBeUndefined();
    expect(stderr()).toBe(
      `Wrote ${projectFile()}: it names project p-link and holds no secret. Commit it: moved or cloned, ` +
        "the folder deploys to the same project.\n",
    );
  });

  it("recordLink: a project file that says it all already is left as it is", async () => {
    await writeLink({});
    const before = await inode();
    const { ctx, stderr } = kit.context();
    await recordLink(ctx, await folderOf(), "p-link", false);
    expect(await inode()).toBe(before);
    await writeLink({ publishAsIs: true });
    const remembered = await inode();
    // An earlier yes stays remembered when this run needed none.
    await recordLink(ctx, await folderOf(), "p-link", false);
    expect(await inode()).toBe(remembered);
    expect(stderr()).toBe("");
  });

  it("recordLink: another API, or a yes to remember, rewrites the file quietly; another project says so", async () => {
    const { ctx, stderr } = kit.context();
    await writeLink({ apiUrl: "http://elsewhere.test" });
    await recordLink(ctx, await folderOf(), "p-link", false);
    expect(await readLink()).toMatchObject({ project: "p-link", apiUrl: kit.api.url });
    await recordLink(ctx, await folderOf(), "p-link", true);
    expect(await readLink()).toMatchObject({ project: "p-link", publishAsIs: true });
    expect(stderr()).toBe("");
    await recordLink(ctx, await folderOf(), "p-new", false);
    expect(await readLink()).toMatchObject({ project: "p-new", publishAsIs: true });
    expect(stderr()).toContain(`Wrote ${projectFile()}: it names project p-new`);
  });

  it("recordLink: a project file that cannot be written is said, and the deploy stands", async () => {
    const { ctx, stderr } = kit.context();
    const gone = join(kit.root, "removed-since");
    await recordLink(ctx, { ...(await folderOf()), realDir: gone }, "p-link", false);
    expect(stderr()).toMatch(
      new RegExp(
        `^The folder's project file was not written: cannot write ${gone}/\\.static-deploy\\.json: ENOENT`,
      ),
    );
  });

  it("recordLink: the saved project follows the folder it was deployed from", async () => {
    const { ctx } = kit.context();
    const projects = new SavedProjects(kit.configDir);
    await projects.put("a".repeat(64), saved("p-moved", { dir: "/old/place" }));
    const folder = { ...(await folderOf()), identityHash: "a".repeat(64) };
    await recordLink(ctx, folder, "p-moved", false);
    expect(await projects.findBySlug(kit.api.url, "p-moved")).toEqual({
      projectHash: "a".repeat(64),
      project: saved("p-moved"),
    });
  });

  it("recordLink: a saved project already in this folder, or none saved, is not written", async () => {
    const { ctx } = kit.context();
    const projects = new SavedProjects(kit.configDir);
    await projects.put("b".repeat(64), saved("p-here"));
    const before = await projects.findBySlug(kit.api.url, "p-here");
    const folder = { ...(await folderOf()), identityHash: "c".repeat(64) };
    await recordLink(ctx, folder, "p-here", false);
    // Under another identity a write would have moved it: it is where it was.
    expect(await projects.findBySlug(kit.api.url, "p-here")).toEqual(before);
    await recordLink(ctx, folder, "p-unsaved", false);
    expect(await projects.findBySlug(kit.api.url, "p-unsaved")).toBeUndefined();
  });

  it("recordLink: under a credential nothing is written: the credential names the project", async () => {
    const { ctx, stderr } = kit.context();
    const projects = new SavedProjects(kit.configDir);
    await projects.put("d".repeat(64), saved("p-cred", { dir: "/old/place" }));
    await recordLink(ctx, { ...(await folderOf()), fromCredential: true }, "p-cred", true);
    expect(await findProjectFile(dir)).toBeUndefined();
    expect((await projects.findBySlug(kit.api.url, "p-cred"))?.project.dir).toBe("/old/place");
    expect(stderr()).toBe("");
  });
});
