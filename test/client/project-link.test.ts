import { cp, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edgeGet, runInProcess, startTestBed, storedProjects, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(async () => {
  await bed?.stop();
});

interface Deployed {
  projectSlug: string;
  productionUrl: string;
}

async function deploy(dir: string, env = bed.env): Promise<Deployed> {
  const run = await runInProcess([dir, "--json"], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Deployed;
}

async function json<T>(argv: string[], env = bed.env): Promise<T> {
  const run = await runInProcess([...argv, "--json"], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

const projectCount = async () => Object.keys(await storedProjects(bed.configDir)).length;

describe("projects follow their folder", () => {
  it("deploy: a moved folder keeps its project: same slug and URL, no new project", async () => {
    const before = join(bed.dir, "moved-before");
    await writeSite(before, { "index.html": "v1" });
    const first = await deploy(before);
    const count = await projectCount();
    const after = join(bed.dir, "moved-after");
    await rename(before, after);
    await writeSite(after, { "index.html": "v2" });
    const second = await deploy(after);
    expect(second.projectSlug).toBe(first.projectSlug);
    expect(second.productionUrl).toBe(first.productionUrl);
    expect(await projectCount()).toBe(count);
    const served = await edgeGet(bed.server.urls.edge, second.productionUrl, "");
    expect(served.body.toString()).toBe("v2");
  });

  it("deploy: a cloned repository deploys its dist/ to the same project; the project file sits at its root", async () => {
    const repo = join(bed.dir, "repo-original");
    await writeSite(repo, {
      ".git/HEAD": "ref: refs/heads/main\n",
      ".gitignore": "dist/\n",
      "package.json": '{"name":"site"}',
      "dist/index.html": "built",
    });
    const first = await deploy(join(repo, "dist"));
    const file = JSON.parse(await readFile(join(repo, ".static-deploy.json"), "utf8"));
    expect(file).toMatchObject({ project: first.projectSlug, dir: "dist" });
    await expect(stat(join(repo, "dist", ".static-deploy.json"))).rejects.toThrow(/ENOENT/);

    // A clean build: dist/ is made afresh, the project stays.
    await rm(join(repo, "dist"), { recursive: true });
    await writeSite(repo, { "dist/index.html": "rebuilt" });
    expect((await deploy(join(repo, "dist"))).projectSlug).toBe(first.projectSlug);

    const clone = join(bed.dir, "repo-clone");
    await cp(repo, clone, { recursive: true });
    const cloned = await deploy(join(clone, "dist"));
    expect(cloned.projectSlug).toBe(first.projectSlug);
    expect(cloned.productionUrl).toBe(first.productionUrl);
  });

  it("deploy: a folder saved by path before project files existed keeps its project and gets the file", async () => {
    const dir = join(bed.dir, "legacy");
    await writeSite(dir, { "index.html": "old" });
    const first = await deploy(dir);
    // As an earlier version left it: the token saved by the folder's path, no project file.
    await rm(join(dir, ".static-deploy.json"));
    await writeSite(dir, { "index.html": "new" });
    const second = await deploy(dir);
    expect(second.projectSlug).toBe(first.projectSlug);
    const file = JSON.parse(await readFile(join(dir, ".static-deploy.json"), "utf8"));
    expect(file.project).toBe(first.projectSlug);
  });

  it("deploy: a project file naming a project this machine holds no token for is refused, creating nothing", async () => {
    const dir = join(bed.dir, "teammate");
    await writeSite(dir, { "index.html": "mine" });
    const first = await deploy(dir);
    const teammate = { ...bed.env, DEPLOY_CONFIG_DIR: join(bed.dir, "teammate-config") };
    const run = await runInProcess([dir, "--json"], teammate);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("PROJECT_NOT_HELD");
    expect(run.stderr).toContain(first.projectSlug);
    expect(run.stderr).toContain("DEPLOY_CREDENTIAL");
    expect(await storedProjects(join(bed.dir, "teammate-config"))).toEqual({});
  });
});

interface ProjectsJson {
  apiUrl: string;
  projects: Array<{
    projectSlug: string;
    productionUrl: string;
    expiresAt: string;
    status: string;
    dir: string;
  }>;
}

describe("link, unlink and projects", () => {
  it("deploy projects: lists each held project with its URL, expiry and folder, in JSON and text", async () => {
    const dir = join(bed.dir, "listed");
    await writeSite(dir, { "index.html": "listed" });
    const deployed = await deploy(dir);
    const listed = await json<ProjectsJson>(["projects"]);
    expect(listed.apiUrl).toBe(bed.env.DEPLOY_API_URL);
    const entry = listed.projects.find((p) => p.projectSlug === deployed.projectSlug);
    expect(entry).toMatchObject({ productionUrl: deployed.productionUrl, status: "active", dir });
    expect(Date.parse(entry!.expiresAt)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    const text = await runInProcess(["projects"], bed.env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${deployed.projectSlug}  ${deployed.productionUrl}  expires `);
    expect(text.stdout).toContain(dir);
  });

  it("deploy unlink: the folder's next deploy makes a new project, the old one stays held; deploy link attaches another folder to it", async () => {
    const dir = join(bed.dir, "unlinked");
    await writeSite(dir, { "index.html": "first" });
    const first = await deploy(dir);
    const unlinked = await json<{ projectSlug: string; unlinked: boolean }>(["unlink", "--dir", dir]);
    expect(unlinked).toMatchObject({ projectSlug: first.projectSlug, unlinked: true });
    await expect(stat(join(dir, ".static-deploy.json"))).rejects.toThrow(/ENOENT/);
    const held = (await json<ProjectsJson>(["projects"])).projects.find(
      (p) => p.projectSlug === first.projectSlug,
    );
    expect(held).toMatchObject({ status: "active", dir: "" });
    const again = await deploy(dir);
    expect(again.projectSlug).not.toBe(first.projectSlug);

    const other = join(bed.dir, "linked");
    await writeSite(other, { "index.html": "linked" });
    const linked = await json<{ projectSlug: string; productionUrl: string }>([
      "link",
      first.projectSlug,
      "--dir",
      other,
    ]);
    expect(linked).toMatchObject({ projectSlug: first.projectSlug, productionUrl: first.productionUrl });
    const deployed = await deploy(other);
    expect(deployed.projectSlug).toBe(first.projectSlug);
    const served = await edgeGet(bed.server.urls.edge, first.productionUrl, "");
    expect(served.body.toString()).toBe("linked");
  });

  it("deploy link: a project this machine holds no token for is refused, and a folder that is not linked cannot be unlinked", async () => {
    const dir = join(bed.dir, "nothing");
    await writeSite(dir, { "index.html": "x" });
    const link = await runInProcess(["link", "no-such-project", "--dir", dir, "--json"], bed.env);
    expect(link.code).toBe(1);
    expect(JSON.parse(link.stdout).error.code).toBe("NO_PROJECT");
    expect(link.stderr).toContain("deploy projects");
    await expect(stat(join(dir, ".static-deploy.json"))).rejects.toThrow(/ENOENT/);
    const unlink = await runInProcess(["unlink", "--dir", dir, "--json"], bed.env);
    expect(unlink.code).toBe(1);
    expect(JSON.parse(unlink.stdout).error.code).toBe("NO_PROJECT");
  });
});
