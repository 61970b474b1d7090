import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { PROJECT_FILE } from "../../local/project-file.js";
import { apiError, runCliIn, useTestApi } from "./test-api.js";
import { publicProject, SLUG } from "../test-fixtures.js";
import { holdProject, type Scratch, useScratchRoot } from "./test-project.js";

const OTHER = "bold-hill-xyz89";
/** The production URL the server answers: not the one saved, so a test sees which is printed. */
const SERVED = "https://www.example.com/";

const api = useTestApi();
const root = useScratchRoot("link-command-");
let scratch: Scratch;
let elsewhere: string;
beforeEach(async () => {
  scratch = await root.scratch(api.url);
  // Where the projects were created: another folder of this machine.
  elsewhere = join(scratch.site, "..", "elsewhere");
  await mkdir(elsewhere);
  for (const slug of [SLUG, OTHER]) {
    const project = publicProject({ projectSlug: slug, productionUrl: SERVED });
    api.on(`POST /projects/${slug}/state`, { status: 200, body: { project, revisions: [] } });
  }
});

/** Runs the CLI in the site folder against the stand-in. */
function cli(args: string[]) {
  return runCliIn(scratch.site, args, scratch.env);
}

/** The site folder's project file, parsed; undefined when there is none. */
async function projectFile(): Promise<Record<string, unknown> | undefined> {
  const text = await readFile(join(scratch.site, PROJECT_FILE), "utf8").catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
}

/** The folder the config folder's record of `slug` names. */
async function savedDir(slug: string): Promise<string | undefined> {
  return (await scratch.saved.findBySlug(api.url, slug))?.project.dir;
}

describe("link", () => {
  it("link: checks the project with the server under its token and identity, then writes the folder's project file", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { dir: elsewhere });
    const run = await cli(["link", SLUG]);
    const path = join(scratch.site, PROJECT_FILE);
    expect(run).toEqual({
      code: 0,
      stdout:
        `Linked ${scratch.site} to project ${SLUG}\n  Production: ${SERVED}\n` +
        `  Project file: ${path} (no secret: commit it)\n`,
      stderr: "",
    });
    expect(
      api.received.map((request) => [request.method, request.path, request.headers.authorization]),
    ).toEqual([["POST", `/projects/${SLUG}/state`, `Bearer ${held.project.apiToken}`]]);
    expect(api.received[0]?.body).toEqual(held.identity);
    expect(await projectFile()).toMatchObject({ project: SLUG, apiUrl: api.url, dir: "." });
  });

  it("link: the project's record now names the folder, under the projectHash it was created with", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { dir: elsewhere });
    await cli(["link", SLUG]);
    expect(await scratch.saved.findBySlug(api.url, SLUG)).toEqual({
      projectHash: held.identity.projectHash,
      project: { ...held.project, dir: scratch.site },
    });
  });

  it("link: --json prints { projectSlug, productionUrl, dir, projectFile }", async () => {
    await holdProject(scratch, api.url, SLUG, { dir: elsewhere });
    const run = await cli(["link", SLUG, "--json"]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toBe(
      `${JSON.stringify({ projectSlug: SLUG, productionUrl: SERVED, dir: scratch.site, projectFile: join(scratch.site, PROJECT_FILE) })}\n`,
    );
  });

  it("link: a folder linked to another project says which it was; linking the same one again does not", async () => {
    await holdProject(scratch, api.url, OTHER, { linked: true });
    await holdProject(scratch, api.url, SLUG, { dir: elsewhere });
    const run = await cli(["link", SLUG]);
    expect(run.stdout.split("\n")[0]).toBe(`Linked ${scratch.site} to project ${SLUG} (was ${OTHER})`);
    expect(await projectFile()).toMatchObject({ project: SLUG });
    const again = await cli(["link", SLUG]);
    expect(again.stdout.split("\n")[0]).toBe(`Linked ${scratch.site} to project ${SLUG}`);
  });

  it("link: a project file that is not one is CONFIG_INVALID, named and left as it is", async () => {
    await holdProject(scratch, api.url, SLUG, { dir: elsewhere });
    const path = join(scratch.site, PROJECT_FILE);
    await writeFile(path, "{ not json");
    const run = await cli(["link", SLUG]);
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `Error: ${path} is not valid JSON\n` +
        "Repair it, or remove it: it holds no secret, and `deploy link <project>` writes it again.\n",
    });
    expect(await readFile(path, "utf8")).toBe("{ not json");
    expect(await savedDir(SLUG)).toBe(elsewhere);
  });

  it("link: a name that is not a project's is a usage error, and nothing is asked", async () => {
    const run = await cli(["link", "Not_A_Project"]);
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr: 'Error: "Not_A_Project" is not a project name\n`deploy projects` lists the projects.\n',
    });
    expect(api.received).toEqual([]);
  });

  it("link: a project this machine holds no token for is NO_PROJECT, and nothing is asked or written", async () => {
    await holdProject(scratch, api.url, SLUG, { dir: elsewhere });
    const run = await cli(["link", OTHER]);
    expect(JSON.parse((await cli(["link", OTHER, "--json"])).stdout).error.code).toBe("NO_PROJECT");
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `Error: this machine holds no token for project ${OTHER} on ${api.url}\n` +
        "`deploy projects` lists those it holds; a project made elsewhere is deployed with DEPLOY_CREDENTIAL.\n",
    });
    expect(api.received).toEqual([]);
    expect(await projectFile()).toBeUndefined();
  });

  it("link: a project the server no longer knows is reported, and neither the file nor the record changes", async () => {
    await holdProject(scratch, api.url, SLUG, { dir: elsewhere });
    api.on(`POST /projects/${SLUG}/state`, apiError(404, "PROJECT_NOT_FOUND", "no such project"));
    const run = await cli(["link", SLUG, "--json"]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("PROJECT_NOT_FOUND");
    expect(await projectFile()).toBeUndefined();
    expect(await savedDir(SLUG)).toBe(elsewhere);
  });

  it("link: a folder that does not exist is NO_FOLDER", async () => {
    await holdProject(scratch, api.url, SLUG, { dir: elsewhere });
    const run = await cli(["link", SLUG, "--dir", "missing", "--json"]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("NO_FOLDER");
    expect(api.received).toEqual([]);
  });
});

describe("unlink", () => {
  it("unlink: removes the project file, clears the folder from the record, keeps the token, and says so", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await cli(["unlink"]);
    expect(run).toEqual({
      code: 0,
      stdout:
        `Unlinked ${scratch.site} from project ${SLUG}; its token is kept (\`deploy link ${SLUG}\` attaches it again).\n` +
        "The folder's next deploy creates a new project.\n",
      stderr: "",
    });
    expect(await projectFile()).toBeUndefined();
    expect(await scratch.saved.findBySlug(api.url, SLUG)).toEqual({
      projectHash: held.identity.projectHash,
      project: { ...held.project, dir: "" },
    });
    expect(api.received).toEqual([]);
  });

  it("unlink: --json prints { projectSlug, dir, unlinked }", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await cli(["unlink", "--json"]);
    expect(run).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ projectSlug: SLUG, dir: scratch.site, unlinked: true })}\n`,
      stderr: "",
    });
  });

  it("unlink: a folder attached only by its path (an earlier version's record) is detached from it", async () => {
    await holdProject(scratch, api.url, SLUG);
    const run = await cli(["unlink", "--json"]);
    expect(JSON.parse(run.stdout)).toEqual({ projectSlug: SLUG, dir: scratch.site, unlinked: true });
    expect(await savedDir(SLUG)).toBe("");
    // Detached: the folder no longer names a project.
    expect((await cli(["unlink"])).code).toBe(1);
  });

  it("unlink: a project file that names a project this machine does not hold is still removed", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    await scratch.saved.remove(api.url, SLUG);
    const run = await cli(["unlink", "--json"]);
    expect(JSON.parse(run.stdout)).toEqual({ projectSlug: SLUG, dir: scratch.site, unlinked: true });
    expect(await projectFile()).toBeUndefined();
  });

  it("unlink: only the records that name this folder forget it", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    await holdProject(scratch, api.url, OTHER, { dir: elsewhere });
    await cli(["unlink"]);
    expect(await savedDir(SLUG)).toBe("");
    expect(await savedDir(OTHER)).toBe(elsewhere);
  });

  it("unlink: a folder linked to nothing is NO_PROJECT", async () => {
    expect(JSON.parse((await cli(["unlink", "--json"])).stdout).error.code).toBe("NO_PROJECT");
    const run = await cli(["unlink"]);
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr: `Error: ${scratch.site} is not linked to a project on ${api.url}\n`,
    });
  });
});
